import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Identity } from '@quire/identity'

interface UsageStatistics {
  /** Users whose entry for the environment is active. */
  activeUsers(environmentId: string): Promise<number>
}

declare module 'fastify' {
  interface FastifyInstance {
    usageStatistics: UsageStatistics
  }
}

/**
 * The size of an environment. The users service owns the users and the index the count runs on: the count
 * crosses its line only through `Identity.activeUsers`, so this service names neither.
 */
export const usageStatisticsPlugin = fp(
  async (app: FastifyInstance, { identity }: { identity: Identity }) => {
    const usageStatistics: UsageStatistics = { activeUsers: (environmentId) => identity.activeUsers(environmentId) }
    app.decorate('usageStatistics', usageStatistics)
  },
  { name: '@quire/packages-usage-statistics', fastify: '5.x' },
)
