import { createHash } from 'node:crypto'
import { defineCollection, StoreFullError, type RecordStore } from '@quire/records'

/**
 * The users service owns the `users`, `long_lived_tokens` and `environments` collections. Every service's auth
 * reads them, and services never import one another, so they are declared here: this module is the interface
 * across that line. It names the fields others read; the users service's own record types extend these.
 */
export interface IdentityUserRecord {
  _id: string
  isSuperAdministrator?: boolean
  profile: { environments: Record<string, { administrator: boolean; active: boolean; groups: string[] }> }
  /** Derived from `profile.environments`, indexed: the environments the user is active in. */
  activeEnvironmentIds: string[]
  authentication: {
    /** Epoch ms; access tokens issued before it are refused (password reset, 2FA reset). */
    sessionsValidAfter?: number
  }
  [field: string]: unknown
}

export interface IdentityTokenRecord {
  _id: string
  userId: string
  /** Only the hash of the secret is stored. */
  tokenHash: string
  expiresOn: string | null
  /** ISO time of the last use, written at most once a minute per token (absent: never used). */
  lastUsedOn?: string
  /**
   * Minted by another user: the environments the minter could act in for the user then, the only ones the token
   * opens (absent: the user's own token, or a super-administrator's, which follow the user).
   */
  environmentIds?: string[]
  [field: string]: unknown
}

export interface IdentityEnvironmentRecord {
  _id: string
  /** `false`: deactivated, open to super-administrators only (absent: active). */
  active?: boolean
  /** Set when deleted: the record stays so the id is never reused (other services' data of it stays unreachable). */
  deletedOn?: string
  [field: string]: unknown
}

/**
 * A renewable sign-in (`/auth/sessions`); its access tokens carry its `_id` as `sid` and are refused once it is
 * gone (signed out, ended, swept) or past `expiresAt`. The users service's record adds the refresh token's hash.
 */
export interface IdentitySessionRecord {
  _id: string
  userId: string
  /** Epoch ms on the users service's clock (the real one outside tests); each renewal pushes it back. */
  expiresAt: number
  /** ISO time of the last request made with one of its access tokens, written at most once a minute. */
  lastUsedOn?: string
  [field: string]: unknown
}

/** What auth needs of an environment: `null` when it does not exist (or was deleted). */
type EnvironmentState = 'active' | 'inactive' | null

export const IDENTITY_COLLECTIONS = {
  users: defineCollection<IdentityUserRecord>('users', [
    { name: 'activeEnvironmentIds', fields: { activeEnvironmentIds: 1 } },
  ]),
  longLivedTokens: defineCollection<IdentityTokenRecord>('long_lived_tokens', [
    { name: 'tokenHash', fields: { tokenHash: 1 }, unique: true },
  ]),
  environments: defineCollection<IdentityEnvironmentRecord>('environments'),
  /** Auth reads it by `_id` alone; the users service declares the rest of its indexes. */
  sessions: defineCollection<IdentitySessionRecord>('sessions'),
} as const

/** What the auth plugin needs to know about a caller, whichever service it runs in. */
export interface UserAccess {
  userId: string
  superAdministrator: boolean
  environments: Readonly<Record<string, { administrator: boolean; active: boolean; groups: readonly string[] }>>
  /** Epoch ms; access tokens issued before it are refused. */
  sessionsValidAfter: number
}

export interface Identity {
  user(userId: string): Promise<UserAccess | null>
  /** The owner of a live (not revoked, not expired) long-lived token, and the environments it is bound to; or null. */
  longLivedToken(
    secret: string,
  ): Promise<{ tokenId: string; userId: string; environmentIds?: readonly string[] } | null>
  environmentState(environmentId: string): Promise<EnvironmentState>
  /** The user of a live (not ended, not expired) session, or null; marks its use as `longLivedToken` does. */
  session(sessionId: string): Promise<{ userId: string } | null>
  /** The users active in an environment (usage statistics), counted on the `activeEnvironmentIds` index. */
  activeUsers(environmentId: string): Promise<number>
}

/** Long-lived tokens are stored only as this hash. They are long random strings, so a fast hash suffices. */
export const hashToken = (secret: string): string => createHash('sha256').update(secret).digest('hex')

/**
 * `lastUsedOn` is written when older than this: the token and session lists show use to the minute, at one write
 * a minute.
 */
const LAST_USE_RESOLUTION_MS = 60_000

/**
 * Users whose decoded access is kept, by id, and environments whose state is: more than are active at once on one
 * process.
 */
const DECODED_KEPT = 10_000

/** Frozen: one decoded access serves every request of the user until the record changes. */
function accessOf(user: IdentityUserRecord): UserAccess {
  const environments = Object.fromEntries(
    Object.entries(user.profile.environments).map(([id, entry]) => [
      id,
      Object.freeze({
        administrator: entry.administrator,
        active: entry.active,
        groups: Object.freeze([...(entry.groups ?? [])]) as string[],
      }),
    ]),
  )
  return Object.freeze({
    userId: user._id,
    superAdministrator: user.isSuperAdministrator === true,
    environments: Object.freeze(environments),
    sessionsValidAfter: user.authentication.sessionsValidAfter ?? 0,
  })
}

/**
 * Identity read from the shared records store on every request: every service sees revocations and
 * deactivations at once, with no cache to go stale. Only the decoding of a user record is reused while its
 * stored text is unchanged.
 */
export function recordsIdentity(store: RecordStore): Identity {
  const users = IDENTITY_COLLECTIONS.users.in(store)
  const tokens = IDENTITY_COLLECTIONS.longLivedTokens.in(store)
  const environments = IDENTITY_COLLECTIONS.environments.in(store)
  const sessions = IDENTITY_COLLECTIONS.sessions.in(store)
  const decoded = new Map<string, { json: string; access: UserAccess }>()
  // An environment's record holds its settings too: decoded again only when its text changed.
  const states = new Map<string, { json: string; state: EnvironmentState }>()
  return {
    async user(userId) {
      const [stored] = await users.findText({ _id: userId })
      if (!stored) return null
      const known = decoded.get(userId)
      if (known?.json === stored.json) return known.access
      const access = accessOf(JSON.parse(stored.json) as IdentityUserRecord)
      if (!known && decoded.size >= DECODED_KEPT) decoded.delete(decoded.keys().next().value as string)
      decoded.set(userId, { json: stored.json, access })
      return access
    },
    async longLivedToken(secret) {
      const token = await tokens.findOne({ tokenHash: hashToken(secret) })
      const now = Date.now()
      if (!token || (token.expiresOn !== null && Date.parse(token.expiresOn) <= now)) return null
      if (token.lastUsedOn === undefined || Date.parse(token.lastUsedOn) + LAST_USE_RESOLUTION_MS <= now) {
        // Conditional on the value read: of concurrent requests, one writes.
        await tokens.updateOne(
          { _id: token._id, lastUsedOn: token.lastUsedOn ?? { $exists: false } },
          { $set: { lastUsedOn: new Date(now).toISOString() } },
        )
      }
      return {
        tokenId: token._id,
        userId: token.userId,
        ...(token.environmentIds && { environmentIds: token.environmentIds }),
      }
    },
    async environmentState(environmentId) {
      const [stored] = await environments.findText({ _id: environmentId })
      if (!stored) return null
      const known = states.get(environmentId)
      if (known?.json === stored.json) return known.state
      const { active, deletedOn } = JSON.parse(stored.json) as IdentityEnvironmentRecord
      const state = deletedOn !== undefined ? null : active === false ? 'inactive' : 'active'
      if (!known && states.size >= DECODED_KEPT) states.delete(states.keys().next().value as string)
      states.set(environmentId, { json: stored.json, state })
      return state
    },
    async session(sessionId) {
      const session = await sessions.findOne({ _id: sessionId })
      const now = Date.now()
      if (!session || session.expiresAt <= now) return null
      if (session.lastUsedOn === undefined || Date.parse(session.lastUsedOn) + LAST_USE_RESOLUTION_MS <= now) {
        try {
          await sessions.updateOne(
            { _id: session._id, lastUsedOn: session.lastUsedOn ?? { $exists: false } },
            { $set: { lastUsedOn: new Date(now).toISOString() } },
          )
        } catch (err) {
          // A full disk refuses writes, not a signed-in user's reads: the time of use stays as it was.
          if (!(err instanceof StoreFullError)) throw err
        }
      }
      return { userId: session.userId }
    },
    activeUsers: (environmentId) => users.count({ activeEnvironmentIds: environmentId }),
  }
}
