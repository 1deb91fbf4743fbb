import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { describeRoutes, fail } from '@quire/service-kit'
import { Type } from '@sinclair/typebox'
import {
  CreateLongLivedTokenBodySchema,
  CreatedLongLivedTokenSchema,
  LongLivedTokenParamsSchema,
  LongLivedTokenSchema,
  LongLivedTokensQuerySchema,
  Ok,
  Page,
  RevokedLongLivedTokenSchema,
  UserParamsSchema,
} from '@quire/contracts'
import { mintedEnvironments } from '../lib/acting-for.js'

/**
 * `/api/v2/users/{userId}/long-lived-tokens`: the user itself, or an administrator who may act for it; never a
 * server script, even for its own user.
 */
export const longLivedTokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.refuseDelegation)
  app.addHook('onRequest', app.auth.requireEnvironment)
  describeRoutes(app, { tag: 'long-lived-tokens' })

  app.post(
    '/:userId/long-lived-tokens',
    {
      // The spec's example sends no body at all: that means all defaults.
      preValidation: async function defaultBody(request) {
        request.body ??= {}
      },
      schema: {
        params: UserParamsSchema,
        body: CreateLongLivedTokenBodySchema,
        bodyOptional: true,
        response: { 201: Ok(Type.Array(CreatedLongLivedTokenSchema)) },
      },
    },
    async function createLongLivedToken(request, reply) {
      // A stolen long-lived token must not mint itself successors: only an interactive sign-in may.
      if (request.scope.via !== 'access-token') {
        throw fail(
          'forbidden',
          'Long-lived tokens are minted only with an access token from /auth/login',
          'Sign in with your password to create a token',
        )
      }
      const user = await app.users.toActFor(request.scope, request.params.userId)
      const token = await app.longLivedTokens.create(user._id, request.body, {
        actorId: request.scope.userId,
        environmentIds: mintedEnvironments(request.scope, user),
      })
      return reply.code(201).send({ status: 'ok' as const, data: [token] })
    },
  )

  app.get(
    '/:userId/long-lived-tokens',
    {
      schema: {
        params: UserParamsSchema,
        querystring: LongLivedTokensQuerySchema,
        response: { 200: Page(LongLivedTokenSchema) },
      },
    },
    async function listLongLivedTokens(request) {
      const user = await app.users.toActFor(request.scope, request.params.userId)
      const { data, pagination } = await app.longLivedTokens.list(user._id, request.query)
      return { status: 'ok' as const, data, pagination }
    },
  )

  app.delete(
    '/:userId/long-lived-tokens/:tokenId',
    { schema: { params: LongLivedTokenParamsSchema, response: { 200: Ok(RevokedLongLivedTokenSchema) } } },
    async function revokeLongLivedToken(request) {
      const user = await app.users.toActFor(request.scope, request.params.userId)
      await app.longLivedTokens.revoke(user._id, request.params.tokenId)
      return { status: 'ok' as const, data: { _id: request.params.tokenId, revoked: true as const } }
    },
  )
}
