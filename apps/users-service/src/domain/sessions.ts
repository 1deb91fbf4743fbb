import { randomBytes, randomUUID } from 'node:crypto'
import { hashToken } from '@quire/identity'
import type { RecordStore, Transaction } from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS } from '../collections.js'

/** A session not renewed for this long ends: a browser left closed for two weeks signs in again. */
export const SESSION_SECONDS = 14 * 86_400
/** Live sessions a user keeps at most: opening one more ends the one renewed longest ago. Bounds the list. */
const MAX_SESSIONS_PER_USER = 50
/** Characters of the `User-Agent` header kept to name a session's device. */
const USER_AGENT_CHARS = 256

/** A session as its user sees it in `GET /auth/sessions`. */
interface SessionView {
  _id: string
  userAgent: string
  _createdOn: string
  lastUsedOn: string
  expiresOn: string
}

export interface SessionsOptions {
  store: RecordStore
  /** Epoch ms of expiries and uses (tests pass a fixed clock). */
  now: () => number
}

/**
 * Renewable sign-ins (the console's): one refresh token at a time, only its hash stored. Each session's access
 * tokens carry its id, and every service refuses them once the record is gone (see @quire/auth), so deleting it
 * is what signs out.
 */
export interface Sessions {
  /** A new session for a user who just proved who they are, from the client `userAgent` names. */
  open(userId: string, userAgent: string | undefined): Promise<{ sessionId: string; refreshToken: string }>
  /**
   * The next refresh token of the session `refreshToken` opens, and whose it is; null when the token is unknown,
   * already used, expired, or the user signed out everywhere (or changed password) since the session opened.
   */
  renew(refreshToken: string): Promise<{ userId: string; sessionId: string; refreshToken: string } | null>
  /** Ends the session of `refreshToken`, if any: it can no longer be renewed, and its access tokens are refused. */
  end(refreshToken: string): Promise<void>
  /** The user's live sessions, renewed last first. */
  list(userId: string): Promise<SessionView[]>
  /** Ends one of the user's own sessions; 404 `not_found` for an unknown id or another user's. */
  endOwn(userId: string, sessionId: string): Promise<void>
}

const newToken = () => randomBytes(32).toString('base64url')
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Deletes every session of `userId` through `store` (a transaction of the caller's, which also moves the user's
 * `sessionsValidAfter`): they no longer renew, nor show in the list. Bounded by `MAX_SESSIONS_PER_USER`.
 */
export const endSessionsOf = (store: RecordStore | Transaction, userId: string): Promise<number> =>
  COLLECTIONS.sessions.in(store).deleteMany({ userId })

export function createSessions({ store, now }: SessionsOptions): Sessions {
  const sessions = COLLECTIONS.sessions.in(store)
  const users = COLLECTIONS.users.in(store)
  // Each renewal starts the time again.
  const expiresAt = () => now() + SESSION_SECONDS * 1000

  /** Makes room for one more: the user's lapsed sessions go, then the ones renewed longest ago past the cap. */
  async function makeRoom(userId: string) {
    await sessions.deleteMany({ userId, expiresAt: { $lte: now() } })
    const live = await sessions.find({ userId }, { sort: { expiresAt: 1 }, projection: { _id: 1 } })
    for (const { _id } of live.slice(0, Math.max(0, live.length - MAX_SESSIONS_PER_USER + 1))) {
      await sessions.deleteOne({ _id })
    }
  }

  return {
    async open(userId, userAgent) {
      await makeRoom(userId)
      const refreshToken = newToken()
      const sessionId = randomUUID()
      const at = now()
      await sessions.insertOne({
        _id: sessionId,
        userId,
        tokenHash: hashToken(refreshToken),
        userAgent: (userAgent ?? '').slice(0, USER_AGENT_CHARS),
        openedAt: Date.now(),
        expiresAt: expiresAt(),
        lastUsedOn: iso(at),
        _createdOn: iso(at),
      })
      return { sessionId, refreshToken }
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
        { $set: { tokenHash: hashToken(next), expiresAt: expiresAt(), lastUsedOn: iso(now()) } },
      )
      return renewed ? { userId: session.userId, sessionId: session._id, refreshToken: next } : null
    },

    async end(refreshToken) {
      await sessions.deleteOne({ tokenHash: hashToken(refreshToken) })
    },

    async list(userId) {
      const live = await sessions.find(
        { userId, expiresAt: { $gt: now() } },
        { sort: { expiresAt: -1 }, limit: MAX_SESSIONS_PER_USER },
      )
      return live.map((session) => ({
        _id: session._id,
        // Sessions opened before these fields existed name no device and were created when opened.
        userAgent: session.userAgent ?? '',
        _createdOn: session._createdOn ?? iso(session.openedAt),
        lastUsedOn: session.lastUsedOn ?? session._createdOn ?? iso(session.openedAt),
        expiresOn: iso(session.expiresAt),
      }))
    },

    async endOwn(userId, sessionId) {
      // The owner is part of the filter: another user's id is as unknown as a made-up one.
      if (!(await sessions.deleteOne({ _id: sessionId, userId }))) {
        throw fail('not_found', `No session ${sessionId} of this user`, 'This session does not exist or already ended')
      }
    },
  }
}
