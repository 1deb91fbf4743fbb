import { createHash } from 'node:crypto'
import type { EnvironmentEntry, EnvironmentRecord, LongLivedTokenRecord, UserRecord } from '@quire/contracts'
import type { RecordStore } from '@quire/records'

/** What the auth plugin needs to know about a caller, whichever service it runs in. */
export interface UserAccess {
  userId: string
  superAdministrator: boolean
  environments: Record<string, Pick<EnvironmentEntry, 'administrator' | 'active' | 'groups'>>
  /** Epoch ms; access tokens issued before it are refused. */
  sessionsValidAfter: number
}

export interface Identity {
  user(userId: string): Promise<UserAccess | null>
  /** The owner of a live (not revoked, not expired) long-lived token, or null. */
  longLivedToken(secret: string): Promise<{ tokenId: string; userId: string } | null>
  environmentExists(environmentId: string): Promise<boolean>
}

/** Long-lived tokens are stored only as this hash. They are long random strings, so a fast hash suffices. */
export const hashToken = (secret: string): string => createHash('sha256').update(secret).digest('hex')

/** Users whose decoded access is kept, by id; more than the callers active at once on one process. */
const DECODED_USERS = 10_000

/** Frozen: one decoded access serves every request of the user until the record changes. */
function accessOf(user: UserRecord): UserAccess {
  const environments = Object.fromEntries(Object.entries(user.profile.environments).map(([id, entry]) =>
    [id, Object.freeze({ administrator: entry.administrator, active: entry.active, groups: Object.freeze([...(entry.groups ?? [])]) as string[] })]))
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
  const users = store.collection<UserRecord>('users')
  const tokens = store.collection<LongLivedTokenRecord>('long_lived_tokens')
  const environments = store.collection<EnvironmentRecord>('environments')
  const decoded = new Map<string, { json: string; access: UserAccess }>()
  return {
    async user(userId) {
      const [stored] = await users.findText({ _id: userId })
      if (!stored) return null
      const known = decoded.get(userId)
      if (known?.json === stored.json) return known.access
      const access = accessOf(JSON.parse(stored.json) as UserRecord)
      if (!known && decoded.size >= DECODED_USERS) decoded.delete(decoded.keys().next().value as string)
      decoded.set(userId, { json: stored.json, access })
      return access
    },
    async longLivedToken(secret) {
      const token = await tokens.findOne({ tokenHash: hashToken(secret) })
      if (!token || (token.expiresOn !== null && Date.parse(token.expiresOn) <= Date.now())) return null
      return { tokenId: token._id, userId: token.userId }
    },
    async environmentExists(environmentId) {
      // Its text is enough: nothing to decode.
      return (await environments.findText({ _id: environmentId })).length > 0
    },
  }
}
