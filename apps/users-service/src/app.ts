import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, recordsIdentity, type KeyPair } from '@quire/auth'
import type { RecordStore } from '@quire/records'
import type { UsersConfig } from './config.js'
import { bootstrap } from './plugins/bootstrap.js'
import { ensureIndexes } from './plugins/indexes.js'
import { authRoutes } from './routes/auth.js'

export interface UsersAppOptions {
  store: RecordStore
  keys: KeyPair
  config: UsersConfig
}

/** The users service: accounts, login, tokens, password reset, 2FA, environments. Never listens itself. */
export const app: FastifyPluginAsync<UsersAppOptions> = async (fastify, { store, keys, config }) => {
  await ensureIndexes(store)
  await bootstrap(store, config, fastify.log)
  await fastify.register(authPlugin, { keys, identity: recordsIdentity(store), accessTokenTtl: config.QUIRE_ACCESS_TOKEN_TTL })
  const routes = { store, accessTokenTtl: config.QUIRE_ACCESS_TOKEN_TTL }
  await fastify.register(authRoutes, { ...routes, prefix: '/auth' })
  await fastify.register(authRoutes, { ...routes, prefix: '/api/v2/auth' })
}

export default app
export { UsersConfigSchema, type UsersConfig } from './config.js'
