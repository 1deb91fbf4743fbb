import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ActiveUsersSchema, Ok } from '@quire/contracts'

/** `/api/v2/usage-statistics`: the size of an environment. */
export const usageStatisticsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.get(
    '/active-users',
    { schema: { response: { 200: Ok(ActiveUsersSchema) } } },
    async function activeUsers(request) {
      return {
        status: 'ok' as const,
        data: { activeUsers: await app.usageStatistics.activeUsers(request.scope.environmentId) },
      }
    },
  )
}
