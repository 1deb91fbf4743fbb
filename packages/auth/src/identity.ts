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

/**
 * Identity read from the shared records store: every service sees revocations and deactivations at once,
 * with no cache to go stale.
 */
export function recordsIdentity(store: RecordStore): Identity {
  const users = store.collection<UserRecord>('users')
  const tokens = store.collection<LongLivedTokenRecord>('long_lived_tokens')
  const environments = store.collection<EnvironmentRecord>('environments')
  return {
    async user(userId) {
      const user = await users.findOne({ _id: userId })
      if (!user) return null
      return {
        userId: user._id,
        superAdministrator: user.isSuperAdministrator === true,
        environments: user.profile.environments,
        sessionsValidAfter: user.authentication.sessionsValidAfter ?? 0,
      }
    },
    async longLivedToken(secret) {
      const token = await tokens.findOne({ tokenHash: hashToken(secret) })
      if (!token || (token.expiresOn !== null && Date.parse(token.expiresOn) <= Date.now())) return null
      return { tokenId: token._id, userId: token.userId }
    },
    async environmentExists(environmentId) {
      // No projection: an environment record is small, and a projection costs more than it saves.
      return (await environments.findOne({ _id: environmentId })) !== null
    },
  }
}
