import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ActiveUsersSchema, Ok, type UserRecord } from '@quire/contracts'
import type { RecordStore } from '@quire/records'

/** `/api/v2/usage-statistics`: the size of an environment. */
export const usageStatisticsRoutes: FastifyPluginAsyncTypebox<{ store: RecordStore }> = async (app, { store }) => {
  const users = store.collection<UserRecord>('users')
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.get('/active-users', { schema: { response: { 200: Ok(ActiveUsersSchema) } } }, async function activeUsers(request) {
    // An indexed count over the derived `activeEnvironmentIds`: no user record is loaded.
    const activeUsers = await users.count({ activeEnvironmentIds: request.caller.environmentId })
    return { status: 'ok' as const, data: { activeUsers } }
  })
}
