import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Identity } from '@quire/identity'
import { createUsageStatistics, type UsageStatistics } from '../domain/usage-statistics.js'

declare module 'fastify' {
  interface FastifyInstance {
    usageStatistics: UsageStatistics
  }
}

/** `app.usageStatistics`: the size of an environment, read through the users service's `Identity`. */
export const usageStatisticsPlugin = fp(
  async (app: FastifyInstance, { identity }: { identity: Identity }) => {
    app.decorate('usageStatistics', createUsageStatistics(identity))
  },
  { name: '@quire/packages-usage-statistics', fastify: '5.x' },
)
