import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, recordsIdentity, type KeyPair } from '@quire/auth'
import type { RecordStore } from '@quire/records'
import type { PackagesConfig } from './config.js'
import { installationsPlugin } from './plugins/installations.js'
import { marketplacePlugin } from './plugins/marketplace.js'
import { usageStatisticsPlugin } from './plugins/usage-statistics.js'
import { installationsRoutes } from './routes/installations.js'
import { marketplaceRoutes } from './routes/marketplace.js'
import { usageStatisticsRoutes } from './routes/usage-statistics.js'

export interface PackagesAppOptions {
  store: RecordStore
  keys: KeyPair
  config: PackagesConfig
}

/** The packages service: marketplace, installations, usage statistics. Never listens itself. */
export const app: FastifyPluginAsync<PackagesAppOptions> = async (fastify, { store, keys }) => {
  // Only the users service signs: the others get the public key alone.
  await fastify.register(authPlugin, { keys: { publicKey: keys.publicKey }, identity: recordsIdentity(store) })
  await fastify.register(marketplacePlugin, { store })
  await fastify.register(installationsPlugin, { store })
  await fastify.register(usageStatisticsPlugin, { store })
  await fastify.register(marketplaceRoutes, { prefix: '/api/v2/packages' })
  await fastify.register(installationsRoutes, { prefix: '/api/v2/packages/installations' })
  await fastify.register(usageStatisticsRoutes, { prefix: '/api/v2/usage-statistics' })
}

export default app
export { PackagesConfigSchema, type PackagesConfig } from './config.js'
