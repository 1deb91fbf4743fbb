import type { Scope } from '@quire/auth'
import type { CreateUserBody, EnvironmentEntry, PatchUserBody } from '@quire/contracts'
import {
  ConflictError,
  DuplicateKeyError,
  InvalidQueryError,
  newObjectId,
  type Filter,
  type RecordStore,
} from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS, type UserRecord } from '../collections.js'
import { userToActFor } from '../lib/acting-for.js'
import { checkUsername, loginKey, storedEmail } from '../lib/identifiers.js'
import { hashPassword } from '../lib/passwords.js'
import { endSessionsOf } from './sessions.js'

interface UserPage {
  users: UserRecord[]
  hasNext: boolean
}

/** The accounts a name given at sign-in or password reset may mean. */
interface NameMatches {
  /** The account of that exact username, else the one whose username or address has the name's login key. */
  byUsername: UserRecord | null
  /** The one account holding the name as a global address; null when none or several (older data) hold it. */
  byEmail: UserRecord | null
}

export interface UsersRepository {
  /** Members of the environment matching `filter` (already checked), in `_id` order, after `after`. */
  list(environmentId: string, options: { filter: Filter; after?: string; limit: number }): Promise<UserPage>
  /** The user when it has an entry in the environment (active or not); null otherwise. */
  findInEnvironment(userId: string, environmentId: string): Promise<UserRecord | null>
  /**
   * The user an administrator may change in the scope's environment: one of its members, or, for a
   * super-administrator, any account (which the change adds to the environment). Null otherwise.
   */
  findToChange(scope: Scope, userId: string): Promise<UserRecord | null>
  /**
   * Throws `validation_error` for a username lib/identifiers.ts refuses, 409 `duplicate_username` or
   * `duplicate_email` when another account is signed in by the same name or address (any case or form).
   */
  create(body: CreateUserBody, environmentId: string, actorId: string): Promise<UserRecord>
  /**
   * An account an export carried (`quire import`), under its exported `_id` and with its entry for the
   * environment; no credentials, its addresses unverified. Refused as `create` refuses.
   */
  createImported(account: ImportedAccount, environmentId: string, actorId: string): Promise<UserRecord>
  /** A super-administrator with no environment entry (the `quire` command); refused as `create` refuses. */
  createSuperAdministrator(username: string, password: string, actorId: string): Promise<UserRecord>
  /** Every lookup is made whatever matches, so the time taken does not tell which did. */
  findByName(name: string): Promise<NameMatches>
  /**
   * Merges `changes` into the user's entry for the environment (created when missing). Deactivating the last
   * environment a user (not a super-administrator) is active in ends its sessions.
   */
  updateEntry(user: UserRecord, environmentId: string, changes: PatchUserBody, actorId: string): Promise<UserRecord>
  /** The user `userId` when the scope's caller may act for it with its credentials (see lib/acting-for). */
  toActFor(scope: Scope, userId: string): Promise<UserRecord>
}

interface ImportedAccount {
  _id: string
  username: string
  addresses: string[]
  entry: PatchUserBody
}

const DEFAULT_ENTRY: EnvironmentEntry = {
  name: '',
  email: '',
  language: 'en',
  locale: 'en',
  administrator: false,
  active: true,
  groups: [],
}
/** Concurrent changes to one user's entries in different environments are rare; retry a few times. */
const MAX_ATTEMPTS = 5

/** Only the fields that were sent, so a PATCH leaves the others alone. */
function entryChanges(body: PatchUserBody): Partial<EnvironmentEntry> {
  const changes: Partial<EnvironmentEntry> = {}
  for (const key of ['name', 'language', 'locale', 'administrator', 'active', 'groups'] as const) {
    if (body[key] !== undefined) Object.assign(changes, { [key]: body[key] })
  }
  if (body.email !== undefined) changes.email = body.email.toLowerCase()
  return changes
}

/** The indexed lists the auth lookups and environment scoping rely on, derived from the entries. */
function derivedIds(environments: Record<string, EnvironmentEntry>) {
  const ids = Object.keys(environments).sort()
  return { environmentIds: ids, activeEnvironmentIds: ids.filter((id) => environments[id]?.active === true) }
}

/**
 * A new account with no environment entry and no password yet: its username checked and in NFC, its global
 * address (if any) in lower case.
 */
function newAccount(rawUsername: string, email: string | undefined, actorId: string): UserRecord {
  const username = checkUsername(rawUsername)
  const address = email === undefined ? undefined : storedEmail(email)
  const now = new Date().toISOString()
  return {
    _id: newObjectId(),
    username,
    profile: { environments: {} },
    globalEmails: address === undefined ? [] : [{ address, verified: false }],
    environmentIds: [],
    activeEnvironmentIds: [],
    authentication: {},
    _createdOn: now,
    _createdByUserId: actorId,
    _lastModifiedOn: now,
    _lastModifiedByUserId: actorId,
  }
}

export function createUsersRepository(store: RecordStore): UsersRepository {
  const users = COLLECTIONS.users.in(store)

  const duplicateUsername = (username: string) =>
    fail('duplicate_username', `The username "${username}" is taken`, 'This username is already taken')
  const duplicateEmail = () => fail('duplicate_email', 'The e-mail address belongs to another account')

  /**
   * Inserts a new account. The unique index on `loginKeys` settles races between new accounts; the addresses of
   * accounts older than login keys are not keyed, so they are looked up first.
   */
  async function insertAccount(user: UserRecord): Promise<UserRecord> {
    const usernameKey = loginKey(user.username)
    const addresses = user.globalEmails.map(({ address }) => address)
    const emails = [...new Set([...addresses, ...addresses.map(loginKey)])]
    const older = await users.findOne(
      { 'globalEmails.address': { $in: [usernameKey, ...emails] } },
      { projection: { globalEmails: 1 } },
    )
    if (older?.globalEmails.some(({ address }) => emails.includes(address))) throw duplicateEmail()
    if (older) throw duplicateUsername(user.username)
    try {
      return await users.insertOne({ ...user, loginKeys: [...new Set([usernameKey, ...addresses.map(loginKey)])] })
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err
      if (err.index === 'username' || (await users.findOne({ loginKeys: usernameKey }, { projection: { _id: 1 } }))) {
        throw duplicateUsername(user.username)
      }
      if (err.index === 'loginKeys') throw duplicateEmail()
      throw err
    }
  }

  return {
    async list(environmentId, { filter, after, limit }) {
      const scope: Filter = { environmentIds: environmentId }
      // Keyset on `_id` as a plain filter: an `after` from another environment tells nothing.
      if (after !== undefined) scope._id = { $gt: after }
      const query = Object.keys(filter).length === 0 ? scope : { $and: [scope, filter] }
      try {
        const found = await users.find(query, { sort: { _id: 1 }, limit: limit + 1, projection: { authentication: 0 } })
        return { users: found.slice(0, limit), hasNext: found.length > limit }
      } catch (err) {
        if (err instanceof InvalidQueryError) throw fail('invalid_query', `query: ${err.message}`)
        throw err
      }
    },

    findInEnvironment: (userId, environmentId) => users.findOne({ _id: userId, environmentIds: environmentId }),

    findToChange: (scope, userId) =>
      users.findOne(scope.superAdministrator ? { _id: userId } : { _id: userId, environmentIds: scope.environmentId }),

    async create(body, environmentId, actorId) {
      const environments = { [environmentId]: { ...DEFAULT_ENTRY, ...entryChanges(body) } }
      const account = newAccount(body.username, body.email, actorId)
      return insertAccount({
        ...account,
        profile: { environments },
        ...derivedIds(environments),
        authentication: body.password === undefined ? {} : { passwordHash: await hashPassword(body.password) },
      })
    },

    async createImported({ _id, username, addresses, entry }, environmentId, actorId) {
      const environments = { [environmentId]: { ...DEFAULT_ENTRY, ...entryChanges(entry) } }
      const stored = [...new Set(addresses.map(storedEmail))]
      return insertAccount({
        ...newAccount(username, undefined, actorId),
        _id,
        globalEmails: stored.map((address) => ({ address, verified: false })),
        profile: { environments },
        ...derivedIds(environments),
      })
    },

    async createSuperAdministrator(username, password, actorId) {
      return insertAccount({
        ...newAccount(username, undefined, actorId),
        isSuperAdministrator: true,
        authentication: { passwordHash: await hashPassword(password) },
      })
    },

    async findByName(name) {
      const [exact, keyed, holders] = await Promise.all([
        users.findOne({ username: name }),
        users.findOne({ loginKeys: loginKey(name) }),
        users.find({ 'globalEmails.address': storedEmail(name) }, { limit: 2 }),
      ])
      return { byUsername: exact ?? keyed, byEmail: holders.length === 1 ? (holders[0] ?? null) : null }
    },

    async updateEntry(user, environmentId, changes, actorId) {
      let current: UserRecord | null = user
      for (let attempt = 0; attempt < MAX_ATTEMPTS && current; attempt++) {
        const existing = current.profile.environments[environmentId]
        const entry = { ...DEFAULT_ENTRY, ...existing, ...entryChanges(changes) }
        const { environmentIds, activeEnvironmentIds } = derivedIds({
          ...current.profile.environments,
          [environmentId]: entry,
        })
        // Deactivated in its last environment, a user has nothing left to be signed in for: its sessions end (every
        // access token issued until now is refused). Active elsewhere, they go on: an administrator of one
        // environment does not sign a user out of another's.
        const signOut = changes.active === false && activeEnvironmentIds.length === 0 && !current.isSuperAdministrator
        const path = `profile.environments.${environmentId}`
        // Field by field into an existing entry, so concurrent changes of other fields are kept.
        const entrySet = existing
          ? Object.fromEntries(Object.entries(entryChanges(changes)).map(([key, value]) => [`${path}.${key}`, value]))
          : { [path]: entry }
        // Only written when the derived lists are still those we derived from: no lost update of another entry.
        const updated = await users.updateOne(
          {
            _id: current._id,
            environmentIds: current.environmentIds,
            activeEnvironmentIds: current.activeEnvironmentIds,
          },
          {
            $set: {
              ...entrySet,
              environmentIds,
              activeEnvironmentIds,
              _lastModifiedOn: new Date().toISOString(),
              _lastModifiedByUserId: actorId,
              ...(signOut && { 'authentication.sessionsValidAfter': Date.now() }),
            },
          },
        )
        // The user's `sessionsValidAfter` already refuses the sessions; deleting them takes them off the list.
        if (updated && signOut) await endSessionsOf(store, updated._id)
        if (updated) return updated
        current = await users.findOne({ _id: user._id })
      }
      if (!current) throw fail('user_not_found', `No user ${user._id}`)
      throw new ConflictError()
    },

    async toActFor(scope, userId) {
      if (userId === scope.userId) {
        const self = await users.findOne({ _id: userId })
        return userToActFor(scope, userId, { target: self, actor: self })
      }
      const [target, actor] = await Promise.all([
        users.findOne({ _id: userId, environmentIds: scope.environmentId }),
        users.findOne({ _id: scope.userId }),
      ])
      return userToActFor(scope, userId, { target, actor })
    },
  }
}
