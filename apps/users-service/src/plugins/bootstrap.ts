import { randomBytes } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { EnvironmentRecord, UserRecord } from '@quire/contracts'
import { DuplicateKeyError, newObjectId, type RecordStore } from '@quire/records'
import type { UsersConfig } from '../config.js'
import { hashPassword } from './passwords.js'

/**
 * First start on an empty store: the configured environment and a super-administrator who administers it.
 * A generated password is printed once, on stdout, never logged.
 */
export async function bootstrap(store: RecordStore, config: UsersConfig, log: FastifyBaseLogger): Promise<void> {
  const users = store.collection<UserRecord>('users')
  if ((await users.count({})) > 0) return
  const now = new Date().toISOString()
  const userId = newObjectId()
  const password = config.QUIRE_ADMIN_PASSWORD ?? randomBytes(18).toString('base64url')
  const environment: EnvironmentRecord = {
    _id: config.QUIRE_ENVIRONMENT_ID,
    name: config.QUIRE_ENVIRONMENT_ID,
    _createdOn: now,
    _createdByUserId: userId,
  }
  const admin: UserRecord = {
    _id: userId,
    username: config.QUIRE_ADMIN_USERNAME,
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
      await tx.collection<EnvironmentRecord>('environments').insertOne(environment)
      await tx.collection<UserRecord>('users').insertOne(admin)
    })
  } catch (err) {
    // Another process bootstrapped the same store first.
    if (err instanceof DuplicateKeyError) return
    throw err
  }
  log.info({ environmentId: environment._id, username: admin.username }, 'bootstrapped an empty store')
  if (!config.QUIRE_ADMIN_PASSWORD) {
    process.stdout.write(
      `\nQuire first start: super-administrator "${admin.username}" created with password: ${password}\n` +
        'It is shown only this once; change it or set QUIRE_ADMIN_PASSWORD.\n\n',
    )
  }
}
