import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  CreateUserBodySchema,
  Ok,
  Page,
  PatchUserBodySchema,
  UserListQuerySchema,
  UserParamsSchema,
  UserReferenceDataSchema,
  UserSchema,
  type UserListQuery,
} from '@quire/contracts'
import { Type } from '@sinclair/typebox'
import { fail } from '@quire/service-kit'
import { parseExclude, parseUserQuery } from '../plugins/user-query.js'
import { toReferenceData, toUser } from '../plugins/user-view.js'
import type { UsersRepository } from '../plugins/users-repository.js'

const OneUserSchema = Ok(Type.Array(UserSchema))

/** The ready query string of the next page, as the spec shows it: `limit`, `exclude`, `after` (and `query`). */
function nextPage({ limit, query }: UserListQuery, exclude: string[], after: string): string {
  const next = new URLSearchParams({ limit: String(limit), exclude: JSON.stringify(exclude), after })
  if (query !== undefined) next.set('query', query)
  // URLSearchParams writes spaces as `+`; the spec's example is plain percent-encoding.
  return next.toString().replaceAll('+', '%20')
}

/** `/api/v2/users`: the accounts of the caller's environment; administrators create and change them. */
export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersRepository }> = async (app, { users }) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  const findOr404 = async (userId: string, environmentId: string) => {
    const user = await users.findInEnvironment(userId, environmentId)
    if (!user) {
      throw fail('user_not_found', `No user ${userId} in environment ${environmentId}`, 'This user does not exist')
    }
    return user
  }

  app.get(
    '/',
    { schema: { querystring: UserListQuerySchema, response: { 200: Page(UserSchema) } } },
    async function listUsers(request) {
      const environmentId = request.caller.environmentId ?? ''
      const filter = parseUserQuery(request.query.query, environmentId)
      const exclude = parseExclude(request.query.exclude)
      const { after, limit } = request.query
      const page = await users.list(environmentId, { filter, after, limit })
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
      const environmentId = request.caller.environmentId ?? ''
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
      const environmentId = request.caller.environmentId ?? ''
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
      const environmentId = request.caller.environmentId ?? ''
      const user = await users.create(request.body, environmentId, request.caller.userId)
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
      const { caller } = request
      const environmentId = caller.environmentId ?? ''
      // A super-administrator may add an existing account to the environment; others change its members only.
      const user = caller.superAdministrator
        ? await users.findById(request.params.userId)
        : await users.findInEnvironment(request.params.userId, environmentId)
      if (!user) {
        throw fail(
          'user_not_found',
          `No user ${request.params.userId} in environment ${environmentId}`,
          'This user does not exist',
        )
      }
      const updated = await users.updateEntry(user, environmentId, request.body, caller.userId)
      return { status: 'ok' as const, data: [toUser(updated, environmentId)] }
    },
  )
}
