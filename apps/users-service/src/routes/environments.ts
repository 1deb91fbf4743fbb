import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { CreateEnvironmentBodySchema, EnvironmentSchema, Ok } from '@quire/contracts'

/** `/api/v2/environments`: super-administrators only, and no `environment-id` (they manage them all). */
export const environmentsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.authenticate)
  app.addHook('onRequest', app.auth.requireSuperAdministrator)

  app.post(
    '/',
    { schema: { body: CreateEnvironmentBodySchema, response: { 201: Ok(EnvironmentSchema) } } },
    async function createEnvironment(request, reply) {
      const environment = await app.environments.create(request.body, request.caller.userId)
      return reply.code(201).send({ status: 'ok' as const, data: environment })
    },
  )

  app.get('/', { schema: { response: { 200: Ok(Type.Array(EnvironmentSchema)) } } }, async function listEnvironments() {
    return { status: 'ok' as const, data: await app.environments.list() }
  })
}
