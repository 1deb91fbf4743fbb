import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  CreateEnvironmentBodySchema,
  DeleteEnvironmentQuerySchema,
  EnvironmentDeletedSchema,
  EnvironmentParamsSchema,
  EnvironmentSchema,
  Ok,
  UpdateEnvironmentBodySchema,
} from '@quire/contracts'
import { describeRoutes } from '@quire/service-kit'

/**
 * `/api/v2/environments`, with no `environment-id`: the list answers every signed-in user (a super-administrator
 * gets them all, anyone else the active ones it belongs to); managing them is for super-administrators.
 */
export const environmentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  describeRoutes(app, { auth: 'bearer' })
  app.addHook('onRequest', app.auth.authenticate)
  const superAdministrator = { onRequest: app.auth.requireSuperAdministrator }

  app.post(
    '/',
    { ...superAdministrator, schema: { body: CreateEnvironmentBodySchema, response: { 201: Ok(EnvironmentSchema) } } },
    async function createEnvironment(request, reply) {
      const environment = await app.environments.create(request.body, request.caller.userId)
      return reply.code(201).send({ status: 'ok' as const, data: environment })
    },
  )

  app.get(
    '/',
    { schema: { response: { 200: Ok(Type.Array(EnvironmentSchema)) } } },
    async function listEnvironments(request) {
      const { userId, superAdministrator, environmentIds } = request.caller
      const all = superAdministrator ? await app.environments.list() : await app.environments.listFor(userId)
      // A token minted by another user shows the environments it opens, not those its user joined since.
      const data = environmentIds ? all.filter(({ _id }) => environmentIds.includes(_id)) : all
      return { status: 'ok' as const, data }
    },
  )

  app.get(
    '/:environmentId',
    { ...superAdministrator, schema: { params: EnvironmentParamsSchema, response: { 200: Ok(EnvironmentSchema) } } },
    async function getEnvironment(request) {
      return { status: 'ok' as const, data: await app.environments.get(request.params.environmentId) }
    },
  )

  app.patch(
    '/:environmentId',
    {
      ...superAdministrator,
      schema: {
        params: EnvironmentParamsSchema,
        body: UpdateEnvironmentBodySchema,
        response: { 200: Ok(EnvironmentSchema) },
      },
    },
    async function updateEnvironment(request) {
      const { environmentId } = request.params
      const data = await app.environments.update(environmentId, request.body, request.caller.userId)
      return { status: 'ok' as const, data }
    },
  )

  app.delete(
    '/:environmentId',
    {
      ...superAdministrator,
      schema: {
        params: EnvironmentParamsSchema,
        querystring: DeleteEnvironmentQuerySchema,
        response: { 200: Ok(EnvironmentDeletedSchema) },
      },
    },
    async function deleteEnvironment(request) {
      const { environmentId } = request.params
      const { force = false } = request.query
      const { removedUserEntries } = await app.environments.delete(environmentId, force, request.caller.userId)
      return { status: 'ok' as const, data: { _id: environmentId, deleted: true as const, removedUserEntries } }
    },
  )
}
