import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  CreateLongLivedTokenBodySchema,
  CreatedLongLivedTokenSchema,
  LongLivedTokenParamsSchema,
  LongLivedTokenSchema,
  Ok,
  RevokedLongLivedTokenSchema,
  UserParamsSchema,
} from '@quire/contracts'
import { userToActFor } from '../plugins/acting-for.js'
import type { LongLivedTokensRepository } from '../plugins/long-lived-tokens.js'
import type { UsersRepository } from '../plugins/users-repository.js'

export interface LongLivedTokenRoutesOptions {
  users: UsersRepository
  tokens: LongLivedTokensRepository
}

/** `/api/v2/users/{userId}/long-lived-tokens`: the user itself, or an administrator who may act for it. */
export const longLivedTokenRoutes: FastifyPluginAsyncTypebox<LongLivedTokenRoutesOptions> = async (
  app,
  { users, tokens },
) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

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
        response: { 201: Ok(Type.Array(CreatedLongLivedTokenSchema)) },
      },
    },
    async function createLongLivedToken(request, reply) {
      const user = await userToActFor(users, request.caller, request.params.userId)
      const token = await tokens.create(user._id, request.body, request.caller.userId)
      return reply.code(201).send({ status: 'ok' as const, data: [token] })
    },
  )

  app.get(
    '/:userId/long-lived-tokens',
    { schema: { params: UserParamsSchema, response: { 200: Ok(Type.Array(LongLivedTokenSchema)) } } },
    async function listLongLivedTokens(request) {
      const user = await userToActFor(users, request.caller, request.params.userId)
      return { status: 'ok' as const, data: await tokens.list(user._id) }
    },
  )

  app.delete(
    '/:userId/long-lived-tokens/:tokenId',
    { schema: { params: LongLivedTokenParamsSchema, response: { 200: Ok(RevokedLongLivedTokenSchema) } } },
    async function revokeLongLivedToken(request) {
      const user = await userToActFor(users, request.caller, request.params.userId)
      await tokens.revoke(user._id, request.params.tokenId)
      return { status: 'ok' as const, data: { _id: request.params.tokenId, revoked: true as const } }
    },
  )
}
