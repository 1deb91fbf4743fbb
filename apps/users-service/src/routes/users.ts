import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  CreateUserBodySchema,
  Ok,
  Page,
  PatchUserBodySchema,
  UserListQuerySchema,
  UserParamsSchema,
  UserReferenceDataSchema,
  UserSchema,
} from '@quire/contracts'
import { fail } from '@quire/service-kit'
import { nextPage, parseExclude, parseUserQuery } from '../lib/user-query.js'
import { toReferenceData, toUser } from '../lib/user-view.js'

const OneUserSchema = Ok(Type.Array(UserSchema))

const userNotFound = (userId: string, environmentId: string) =>
  fail('user_not_found', `No user ${userId} in environment ${environmentId}`, 'This user does not exist')

/** `/api/v2/users`: the accounts of the caller's environment; administrators create and change them. */
export const usersRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  async function findOr404(userId: string, environmentId: string) {
    const user = await app.users.findInEnvironment(userId, environmentId)
    if (!user) throw userNotFound(userId, environmentId)
    return user
  }

  app.get(
    '/',
    { schema: { querystring: UserListQuerySchema, response: { 200: Page(UserSchema) } } },
    async function listUsers(request) {
      const { environmentId } = request.scope
      const filter = parseUserQuery(request.query.query, environmentId)
      const exclude = parseExclude(request.query.exclude)
      const { after, limit } = request.query
      const page = await app.users.list(environmentId, { filter, after, limit })
      const hidden = new Set(exclude)
      const last = page.users.at(-1)
      return {
        status: 'ok' as const,
        data: page.users.map((user) => toUser(user, environmentId, hidden)),
        pagination: {
          hasPrevious: after !== undefined,
          hasNext: page.hasNext,
          type: 'cursor' as const,
          ...(page.hasNext && last ? { next: nextPage(request.query, exclude, last._id) } : {}),
        },
      }
    },
  )

  app.get(
    '/:userId',
    { schema: { params: UserParamsSchema, response: { 200: OneUserSchema } } },
    async function getUser(request) {
      const { environmentId } = request.scope
      return {
        status: 'ok' as const,
        data: [toUser(await findOr404(request.params.userId, environmentId), environmentId)],
      }
    },
  )

  app.get(
    '/:userId/reference-data',
    { schema: { params: UserParamsSchema, response: { 200: Ok(UserReferenceDataSchema) } } },
    async function getReferenceData(request) {
      const { environmentId } = request.scope
      return {
        status: 'ok' as const,
        data: toReferenceData(await findOr404(request.params.userId, environmentId), environmentId),
      }
    },
  )

  app.post(
    '/',
    {
      onRequest: app.auth.requireAdministrator,
      schema: { body: CreateUserBodySchema, response: { 201: OneUserSchema } },
    },
    async function createUser(request, reply) {
      const { environmentId, userId } = request.scope
      const user = await app.users.create(request.body, environmentId, userId)
      return reply.code(201).send({ status: 'ok' as const, data: [toUser(user, environmentId)] })
    },
  )

  app.patch(
    '/:userId',
    {
      onRequest: app.auth.requireAdministrator,
      schema: { params: UserParamsSchema, body: PatchUserBodySchema, response: { 200: OneUserSchema } },
    },
    async function updateUser(request) {
      const { scope } = request
      const { userId } = request.params
      const user = await app.users.findToChange(scope, userId)
      if (!user) throw userNotFound(userId, scope.environmentId)
      const updated = await app.users.updateEntry(user, scope.environmentId, request.body, scope.userId)
      return { status: 'ok' as const, data: [toUser(updated, scope.environmentId)] }
    },
  )
}
