import { randomBytes, randomUUID } from 'node:crypto'
import { hashToken, IDENTITY_COLLECTIONS } from '@quire/identity'
import { defineCollection, ensureIndexes, type RecordStore } from '@quire/records'

/**
 * A renewable sign-in (the console's): one refresh token at a time, only its hash stored. Access tokens stay
 * stateless JWTs; this record is what lets a client get the next one without the password, and what signing out
 * deletes.
 */
interface SessionRecord {
  _id: string
  userId: string
  tokenHash: string
  /** Real epoch ms, compared with the user's `sessionsValidAfter` (which is written on the real clock). */
  openedAt: number
  /** Epoch ms on the service's clock: the refresh token is refused from then on. */
  expiresAt: number
  [field: string]: unknown
}

const SESSIONS = defineCollection<SessionRecord>('sessions', [
  { name: 'tokenHash', fields: { tokenHash: 1 }, unique: true },
  { name: 'userId', fields: { userId: 1 } },
])

export interface SessionsOptions {
  /** Seconds a refresh token stays good; each renewal starts the time again. */
  lifetimeSeconds: number
  now: () => number
}

export interface Sessions {
  /** A new session for a user who just proved who they are; resolves to its refresh token. */
  open(userId: string): Promise<string>
  /**
   * The next refresh token of the session `refreshToken` opens, and whose it is; null when the token is unknown,
   * already used, expired, or the user signed out everywhere (or changed password) since the session opened.
   */
  renew(refreshToken: string): Promise<{ userId: string; refreshToken: string } | null>
  /** Ends the session of `refreshToken`, if any: it can no longer be renewed. */
  end(refreshToken: string): Promise<void>
}

const newToken = () => randomBytes(32).toString('base64url')

export async function openSessions(store: RecordStore, { lifetimeSeconds, now }: SessionsOptions): Promise<Sessions> {
  await ensureIndexes(store, [SESSIONS])
  const sessions = SESSIONS.in(store)
  const users = IDENTITY_COLLECTIONS.users.in(store)
  const expiresAt = () => now() + lifetimeSeconds * 1000
  return {
    async open(userId) {
      // A user's lapsed sessions go when they open a new one: no sweeper needed for the common case.
      await sessions.deleteMany({ userId, expiresAt: { $lte: now() } })
      const refreshToken = newToken()
      await sessions.insertOne({
        _id: randomUUID(),
        userId,
        tokenHash: hashToken(refreshToken),
        openedAt: Date.now(),
        expiresAt: expiresAt(),
      })
      return refreshToken
    },

    async renew(refreshToken) {
      const tokenHash = hashToken(refreshToken)
      const session = await sessions.findOne({ tokenHash })
      if (!session) return null
      const user = await users.findOne({ _id: session.userId })
      const revokedAfter = user?.authentication.sessionsValidAfter ?? 0
      if (!user || session.expiresAt <= now() || session.openedAt < revokedAfter) {
        await sessions.deleteOne({ _id: session._id })
        return null
      }
      const next = newToken()
      // Conditional on the old hash: of two renewals racing with one token, one wins and the other is refused.
      const renewed = await sessions.updateOne(
        { _id: session._id, tokenHash },
        { $set: { tokenHash: hashToken(next), expiresAt: expiresAt() } },
      )
      return renewed ? { userId: session.userId, refreshToken: next } : null
    },

    async end(refreshToken) {
      await sessions.deleteOne({ tokenHash: hashToken(refreshToken) })
    },
  }
}
