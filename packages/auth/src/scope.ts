import { ENVIRONMENT_ID_PATTERN } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { Identity } from '@quire/identity'
import type { Identified, Scope } from './caller.js'

const ENVIRONMENT_ID = new RegExp(ENVIRONMENT_ID_PATTERN)

/** The `environment-id` header's value, checked for form only (400 when absent or malformed). */
export function environmentIdOf(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw fail('environment_id_missing', 'The environment-id header is required', 'No environment was selected')
  }
  if (typeof header !== 'string' || !ENVIRONMENT_ID.test(header)) {
    throw fail(
      'validation_error',
      `headers/environment-id must match ${ENVIRONMENT_ID_PATTERN}`,
      'The selected environment is not a valid environment id',
    )
  }
  return header
}

/** The caller's scope in `environmentId`: 403 unless its credentials reach it and its user has access there. */
export async function scopeIn(identified: Identified, environmentId: string, identity: Identity): Promise<Scope> {
  const { userId, via, access, actionDepth, superAdministrator, environmentIds, signal, sessionId } = identified
  // Bound credentials never reach another environment, even one their user can.
  if (environmentIds !== undefined && !environmentIds.includes(environmentId)) {
    throw via === 'action'
      ? fail('forbidden', `An action of environment ${environmentIds[0]} cannot reach environment ${environmentId}`)
      : fail(
          'forbidden',
          `This long-lived token was not minted for environment ${environmentId}`,
          'You do not have access to this environment',
        )
  }
  const entry = access.environments[environmentId]
  let role: Pick<Scope, 'administrator' | 'groups'>
  // A super-administrator's action administers its run's environment, the one it reaches.
  if (superAdministrator || (via === 'action' && access.superAdministrator)) {
    if ((await identity.environmentState(environmentId)) === null) {
      throw fail('forbidden', `Environment ${environmentId} does not exist`, 'This environment does not exist')
    }
    role = { administrator: true, groups: entry?.groups ?? [] }
  } else if (entry?.active === true && (await identity.environmentState(environmentId)) === 'active') {
    // A deactivated environment is open to super-administrators only.
    role = { administrator: entry.administrator, groups: entry.groups }
  } else {
    throw fail('forbidden', `No access to environment ${environmentId}`, 'You do not have access to this environment')
  }
  return {
    userId,
    via,
    superAdministrator,
    actionDepth,
    environmentId,
    ...role,
    ...(environmentIds && { environmentIds }),
    ...(signal && { signal }),
    ...(sessionId !== undefined && { sessionId }),
  }
}
