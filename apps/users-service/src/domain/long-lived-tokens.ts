import { randomBytes } from 'node:crypto'
import type {
  CreateLongLivedTokenBody,
  CreatedLongLivedToken,
  LongLivedToken,
  LongLivedTokensQuery,
  Pagination,
} from '@quire/contracts'
import { hashToken } from '@quire/identity'
import { newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS, type LongLivedTokenRecord } from '../collections.js'

export interface LongLivedTokensRepository {
  /**
   * Mints a token; the secret is in the answer and nowhere else (only its hash is stored). `environmentIds`: the
   * only environments it opens (see lib/acting-for `mintedEnvironments`); undefined, every one of its user's.
   */
  create(
    userId: string,
    body: CreateLongLivedTokenBody,
    minted: { actorId: string; environmentIds: string[] | undefined },
  ): Promise<CreatedLongLivedToken>
  /** A page of its tokens in creation order, with when each was last used (to the minute). */
  list(userId: string, page: LongLivedTokensQuery): Promise<{ data: LongLivedToken[]; pagination: Pagination }>
  /** Deletes the record: every service's auth lookup refuses the token from then on. */
  revoke(userId: string, tokenId: string): Promise<void>
}

/** Recognizable in logs and secret scanners; 32 random bytes behind it. No dots, so never taken for a JWT. */
const newSecret = () => `qlt_${randomBytes(32).toString('base64url')}`

const toToken = (record: LongLivedTokenRecord): LongLivedToken => ({
  _id: record._id,
  name: record.name,
  _createdOn: record._createdOn,
  _createdByUserId: record._createdByUserId,
  expiresOn: record.expiresOn,
  lastUsedOn: record.lastUsedOn ?? null,
})

export interface LongLivedTokensOptions {
  store: RecordStore
  /** Days a token lives when the request names no `expiresOn`, and the most it may name (operator's choice). */
  defaultDays: number
  maxDays: number
}

const DAY_MS = 86_400_000

/** Expiry is checked by every service's auth on the real clock (@quire/identity), so it is set on that clock. */
export function createLongLivedTokens({
  store,
  defaultDays,
  maxDays,
}: LongLivedTokensOptions): LongLivedTokensRepository {
  const tokens = COLLECTIONS.longLivedTokens.in(store)
  return {
    async create(userId, { name, expiresOn }, { actorId, environmentIds }) {
      const now = Date.now()
      const latest = now + maxDays * DAY_MS
      const expires = expiresOn === undefined ? Math.min(now + defaultDays * DAY_MS, latest) : Date.parse(expiresOn)
      if (expires <= now) throw fail('validation_error', 'body/expiresOn must be in the future')
      if (expires > latest) {
        throw fail(
          'validation_error',
          `body/expiresOn must be within ${maxDays} days (QUIRE_LONG_LIVED_TOKEN_MAX_DAYS)`,
          `A token may live at most ${maxDays} days`,
        )
      }
      const token = newSecret()
      const record = await tokens.insertOne({
        _id: newObjectId(),
        userId,
        tokenHash: hashToken(token),
        name: name ?? '',
        _createdOn: new Date().toISOString(),
        _createdByUserId: actorId,
        expiresOn: new Date(expires).toISOString(),
        ...(environmentIds && { environmentIds }),
      })
      return { ...toToken(record), token }
    },

    async list(userId, { limit, after }) {
      const found = await tokens.find(
        { userId },
        { sort: { _id: 1 }, limit: limit + 1, after, projection: { tokenHash: 0 } },
      )
      const hasNext = found.length > limit
      if (hasNext) found.length = limit
      const pagination: Pagination = { hasPrevious: after !== undefined, hasNext, type: 'cursor' }
      const last = found.at(-1)
      if (hasNext && last) pagination.next = new URLSearchParams({ limit: String(limit), after: last._id }).toString()
      return { data: found.map(toToken), pagination }
    },

    async revoke(userId, tokenId) {
      const deleted = await tokens.deleteOne({ _id: tokenId, userId })
      if (!deleted) throw fail('token_not_found', `No long-lived token ${tokenId} for user ${userId}`)
    },
  }
}
