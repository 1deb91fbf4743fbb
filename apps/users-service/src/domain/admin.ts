import type { CreateEnvironmentBody, EnvironmentEntry } from '@quire/contracts'
import type { RecordStore } from '@quire/records'
import {
  COLLECTIONS,
  ensureUsersIndexes,
  type EnvironmentRecord,
  type OutboxRecord,
  type UserRecord,
} from '../collections.js'
import { hashPassword } from '../lib/passwords.js'
import { createEnvironmentsRepository } from './environments.js'
import { endSessionsOf } from './sessions.js'
import { createUsersRepository } from './users-repository.js'

/** A member of an environment as an export carries it: the account's name and addresses, never credentials. */
export interface ExportedMember {
  _id: string
  username: string
  globalEmails: UserRecord['globalEmails']
  entry: EnvironmentEntry
}

/** One import into a new environment: what it wrote is its own until `open`, and `discard` removes it. */
interface UsersImport {
  /** Whether the environment exists or existed (its id is never reused). */
  taken(): Promise<boolean>
  /**
   * The entry joins the account of the same `_id` (which must have the same username), or a new account made by
   * the service's rules; a username or address another account holds is refused (`ApiError`).
   */
  member(member: ExportedMember): Promise<void>
  /** Creates the environment, last: until then nobody can reach what was written into it. */
  open(body: CreateEnvironmentBody, active: boolean): Promise<void>
  /**
   * Removes what was written for the environment, which does not exist: the accounts this import created and every
   * other account's entry for it. True when there was anything to remove.
   */
  discard(): Promise<boolean>
}

/** What the `quire` command does to the users service's data, through the service's own rules. */
export interface UsersAdmin {
  /** The collections the service owns, by name. */
  readonly collections: readonly string[]
  /** Creates the missing indexes and keys old accounts (what a start does). */
  ensureIndexes(): Promise<void>
  /** The environment's record, deleted or not; null when it never existed. */
  environment(environmentId: string): Promise<EnvironmentRecord | null>
  /**
   * A super-administrator, or with `environmentId` an administrator of that environment; the username checked and
   * unique in any case or form (refused as `ApiError`).
   */
  createAdministrator(account: { username: string; password: string; environmentId?: string }): Promise<void>
  /**
   * As a confirmed reset does: the new password, every session ended, pending reset tokens void. The account is
   * found as sign-in finds it; false when there is none.
   */
  resetPassword(username: string, password: string): Promise<boolean>
  /** The newest mails of the outbox, without their text (it holds tokens). */
  newestMails(limit: number): Promise<Pick<OutboxRecord, '_id' | '_createdOn' | 'status' | 'to' | 'subject'>[]>
  /** The environment's members in `_id` order. */
  members(environmentId: string): Promise<ExportedMember[]>
  importInto(environmentId: string): UsersImport
}

const PAGE = 500

/** `actorId`: who the records say made the changes (the `quire` command). */
export function createUsersAdmin(store: RecordStore, actorId: string): UsersAdmin {
  const users = createUsersRepository(store)
  const environments = createEnvironmentsRepository(store)
  const accounts = COLLECTIONS.users.in(store)

  return {
    collections: Object.values(COLLECTIONS).map(({ name }) => name),

    async ensureIndexes() {
      await ensureUsersIndexes(store)
    },

    environment: (environmentId) => COLLECTIONS.environments.in(store).findOne({ _id: environmentId }),

    async createAdministrator({ username, password, environmentId }) {
      if (environmentId === undefined) await users.createSuperAdministrator(username, password, actorId)
      else await users.create({ username, password, administrator: true }, environmentId, actorId)
    },

    async resetPassword(username, password) {
      const { byUsername } = await users.findByName(username)
      if (!byUsername) return false
      const updated = await accounts.updateOne(
        { _id: byUsername._id },
        {
          $set: {
            'authentication.passwordHash': await hashPassword(password),
            'authentication.sessionsValidAfter': Date.now(),
            _lastModifiedOn: new Date().toISOString(),
            _lastModifiedByUserId: actorId,
          },
        },
      )
      if (!updated) return false
      await COLLECTIONS.passwordResets.in(store).deleteMany({ userId: updated._id })
      await endSessionsOf(store, updated._id)
      return true
    },

    newestMails: (limit) =>
      COLLECTIONS.mailOutbox.in(store).find({}, { sort: { _createdOn: -1 }, limit, projection: { text: 0 } }),

    async members(environmentId) {
      const found = await accounts.find({ environmentIds: environmentId }, { sort: { _id: 1 } })
      return found.flatMap(({ _id, username, globalEmails, profile }) => {
        const entry = profile.environments[environmentId]
        return entry ? [{ _id, username, globalEmails, entry }] : []
      })
    },

    importInto(environmentId) {
      const created = new Set<string>()
      return {
        taken: async () => (await COLLECTIONS.environments.in(store).findOne({ _id: environmentId })) !== null,

        async member({ _id, username, globalEmails, entry }) {
          const existing = await accounts.findOne({ _id })
          if (existing) {
            if (existing.username !== username.normalize('NFC')) {
              throw new Error(`user ${_id} is "${existing.username}" here, not "${username}"`)
            }
            await users.updateEntry(existing, environmentId, entry, actorId)
            return
          }
          created.add(_id)
          const addresses = globalEmails.map(({ address }) => address)
          await users.createImported({ _id, username, addresses, entry }, environmentId, actorId)
        },

        async open(body, active) {
          await environments.create(body, actorId)
          if (!active) await environments.update(environmentId, { active: false }, actorId)
        },

        async discard() {
          let removed = false
          for (;;) {
            const page = await accounts.find({ environmentIds: environmentId }, { limit: PAGE })
            for (const user of page) {
              removed = true
              if (created.has(user._id)) {
                await accounts.deleteOne({ _id: user._id })
                continue
              }
              // Unless its entries changed meanwhile: then it is read again by the next page.
              await accounts.updateOne(
                { _id: user._id, environmentIds: user.environmentIds, activeEnvironmentIds: user.activeEnvironmentIds },
                {
                  $unset: { [`profile.environments.${environmentId}`]: '' },
                  $set: {
                    environmentIds: user.environmentIds.filter((id) => id !== environmentId),
                    activeEnvironmentIds: user.activeEnvironmentIds.filter((id) => id !== environmentId),
                  },
                },
              )
            }
            if (page.length < PAGE) return removed
          }
        },
      }
    },
  }
}
