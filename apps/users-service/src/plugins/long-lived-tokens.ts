import { randomBytes } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { CreateLongLivedTokenBody, CreatedLongLivedToken, LongLivedToken } from '@quire/contracts'
import { hashToken } from '@quire/identity'
import { newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS, type LongLivedTokenRecord } from '../collections.js'

export interface LongLivedTokensRepository {
  /** Mints a token; the secret is in the answer and nowhere else (only its hash is stored). */
  create(userId: string, body: CreateLongLivedTokenBody, actorId: string): Promise<CreatedLongLivedToken>
  list(userId: string): Promise<LongLivedToken[]>
  /** Deletes the record: every service's auth lookup refuses the token from then on. */
  revoke(userId: string, tokenId: string): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    longLivedTokens: LongLivedTokensRepository
  }
}

/** Recognizable in logs and secret scanners; 32 random bytes behind it. No dots, so never taken for a JWT. */
const newSecret = () => `qlt_${randomBytes(32).toString('base64url')}`

const toToken = (record: LongLivedTokenRecord): LongLivedToken => ({
  _id: record._id,
  name: record.name,
  _createdOn: record._createdOn,
  _createdByUserId: record._createdByUserId,
  expiresOn: record.expiresOn,
})

function longLivedTokensRepository(store: RecordStore): LongLivedTokensRepository {
  const tokens = COLLECTIONS.longLivedTokens.in(store)
  return {
    async create(userId, { name, expiresOn }, actorId) {
      if (expiresOn !== undefined && Date.parse(expiresOn) <= Date.now()) {
        throw fail('validation_error', 'body/expiresOn must be in the future')
      }
      const token = newSecret()
      const record = await tokens.insertOne({
        _id: newObjectId(),
        userId,
        tokenHash: hashToken(token),
        name: name ?? '',
        _createdOn: new Date().toISOString(),
        _createdByUserId: actorId,
        expiresOn: expiresOn === undefined ? null : new Date(expiresOn).toISOString(),
      })
      return { ...toToken(record), token }
    },

    async list(userId) {
      const found = await tokens.find({ userId }, { sort: { _id: 1 }, projection: { tokenHash: 0 } })
      return found.map(toToken)
    },

    async revoke(userId, tokenId) {
      const deleted = await tokens.deleteOne({ _id: tokenId, userId })
      if (!deleted) throw fail('token_not_found', `No long-lived token ${tokenId} for user ${userId}`)
    },
  }
}

/** `app.longLivedTokens`: bearer secrets that work in every environment of their user until revoked or expired. */
export const longLivedTokensPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('longLivedTokens', longLivedTokensRepository(store))
  },
  { name: '@quire/users-long-lived-tokens', fastify: '5.x' },
)
