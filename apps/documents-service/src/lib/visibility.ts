import type { Caller } from '@quire/auth'
import type { Permissions } from '@quire/contracts'

/** Who acts, and where: the part of `request.caller` the repositories need, environment guaranteed. */
export interface Scope {
  environmentId: string
  userId: string
  administrator: boolean
  groups: readonly string[]
}

/** Only for routes behind `requireEnvironment`, which sets `caller.environmentId`. */
export function scopeOf(caller: Caller): Scope {
  if (caller.environmentId === null) throw new Error('scopeOf needs a route behind requireEnvironment')
  return {
    environmentId: caller.environmentId,
    userId: caller.userId,
    administrator: caller.administrator,
    groups: caller.groups,
  }
}

const ACTIONS = ['read', 'create', 'update', 'delete']
const ADMINISTRATOR: Permissions = Object.freeze({ fullPermissions: true, userActionPermissions: ACTIONS })
const MEMBER: Permissions = Object.freeze({ fullPermissions: false, userActionPermissions: ACTIONS })

/**
 * `_permissions` of what a caller can see: members may act on every document visible to them; only
 * administrators hold full permissions (they also manage the definitions). One frozen object per role.
 */
export const permissionsOf = (scope: Scope): Permissions => (scope.administrator ? ADMINISTRATOR : MEMBER)
