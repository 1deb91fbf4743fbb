import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, workAccountPlugin, type KeyPair } from '@quire/auth'
import { recordsIdentity } from '@quire/identity'
import type { SharedCounts } from '@quire/service-kit'
import type { RecordStore } from '@quire/records'
import { ensurePackagesIndexes } from './collections.js'
import type { PackagesConfig } from './config.js'
import { installationsPlugin } from './plugins/installations.js'
import { marketplacePlugin } from './plugins/marketplace.js'
import { usageStatisticsPlugin } from './plugins/usage-statistics.js'
import { installationsRoutes } from './routes/installations.js'
import { marketplaceRoutes } from './routes/marketplace.js'
import { usageStatisticsRoutes } from './routes/usage-statistics.js'
import { PREFIXES } from './service.js'

export interface PackagesAppOptions {
  store: RecordStore
  keys: KeyPair
  /** Where budgets and caps are counted: every process of the server (absent: this app's own memory). */
  counts?: SharedCounts
  config: PackagesConfig
}

/** The packages service: marketplace, installations, usage statistics. Never listens itself. */
export const app: FastifyPluginAsync<PackagesAppOptions> = async (fastify, { store, keys, config, counts }) => {
  const identity = recordsIdentity(store)
  // Only the users service signs: the others get the public key alone.
  await fastify.register(authPlugin, {
    keys: { publicKey: keys.publicKey },
    identity,
    callerRateLimitPerMinute: config.QUIRE_CALLER_RATE_LIMIT_PER_MINUTE,
    counts,
  })
  await fastify.register(workAccountPlugin, { queueLimit: config.QUIRE_WORK_QUEUE_PER_ENVIRONMENT })

  await ensurePackagesIndexes(store)
  await fastify.register(marketplacePlugin, { store })
  await fastify.register(installationsPlugin, { store })
  await fastify.register(usageStatisticsPlugin, { identity })

  await fastify.register(marketplaceRoutes, { prefix: PREFIXES.packages })
  // Installations live under the marketplace's prefix, in their own plugin: they are scoped to an environment.
  await fastify.register(installationsRoutes, { prefix: `${PREFIXES.packages}/installations` })
  await fastify.register(usageStatisticsRoutes, { prefix: PREFIXES.usageStatistics })
}
