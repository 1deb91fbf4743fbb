import { randomBytes } from 'node:crypto'
import { DuplicateKeyError, newObjectId, type RecordStore } from '@quire/records'
import { COLLECTIONS, type EnvironmentRecord, type UserRecord } from '../collections.js'
import { checkUsername, loginKey } from '../lib/identifiers.js'
import { hashPassword } from '../lib/passwords.js'

export interface BootstrapOptions {
  store: RecordStore
  /** `QUIRE_ENVIRONMENT_ID`, `QUIRE_ADMIN_USERNAME`, `QUIRE_ADMIN_PASSWORD`. */
  environmentId: string
  username: string
  password?: string | undefined
}

/**
 * First start on an empty store: the configured environment and a super-administrator who administers it. Null
 * when the store has users already (or another process bootstrapped it first); else who was created, with the
 * password when it was generated (the caller shows it once).
 */
export async function bootstrapStore({
  store,
  environmentId,
  ...options
}: BootstrapOptions): Promise<{ environmentId: string; username: string; generatedPassword?: string } | null> {
  if ((await COLLECTIONS.users.in(store).count({})) > 0) return null
  const username = checkUsername(options.username)
  const now = new Date().toISOString()
  const userId = newObjectId()
  const password = options.password ?? randomBytes(18).toString('base64url')
  const environment: EnvironmentRecord = {
    _id: environmentId,
    name: environmentId,
    _createdOn: now,
    _createdByUserId: userId,
  }
  const admin: UserRecord = {
    _id: userId,
    username,
    profile: {
      environments: {
        [environment._id]: {
          name: 'Administrator',
          email: '',
          language: 'en',
          locale: 'en',
          administrator: true,
          active: true,
          groups: [],
        },
      },
    },
    globalEmails: [],
    loginKeys: [loginKey(username)],
    environmentIds: [environment._id],
    activeEnvironmentIds: [environment._id],
    isSuperAdministrator: true,
    authentication: { passwordHash: await hashPassword(password) },
    _createdOn: now,
    _createdByUserId: userId,
    _lastModifiedOn: now,
    _lastModifiedByUserId: userId,
  }
  try {
    await store.transaction(async (tx) => {
      await COLLECTIONS.environments.in(tx).insertOne(environment)
      await COLLECTIONS.users.in(tx).insertOne(admin)
    })
  } catch (err) {
    // Another process bootstrapped the same store first.
    if (err instanceof DuplicateKeyError) return null
    throw err
  }
  return {
    environmentId: environment._id,
    username: admin.username,
    ...(options.password ? {} : { generatedPassword: password }),
  }
}
