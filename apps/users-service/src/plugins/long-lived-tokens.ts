import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import {
  createLongLivedTokens,
  type LongLivedTokensOptions,
  type LongLivedTokensRepository,
} from '../domain/long-lived-tokens.js'

declare module 'fastify' {
  interface FastifyInstance {
    longLivedTokens: LongLivedTokensRepository
  }
}

/**
 * `app.longLivedTokens`: bearer secrets for every environment of their user (or those they were minted for), until
 * revoked or expired (all expire).
 */
export const longLivedTokensPlugin = fp(
  async (app: FastifyInstance, options: LongLivedTokensOptions) => {
    app.decorate('longLivedTokens', createLongLivedTokens(options))
  },
  { name: '@quire/users-long-lived-tokens', fastify: '5.x' },
)
