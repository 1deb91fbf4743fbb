import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { UserRecord } from '@quire/contracts'
import type { RecordStore } from '@quire/records'

export interface UsageStatistics {
  /** Users whose entry for the environment is active. */
  activeUsers(environmentId: string): Promise<number>
}

declare module 'fastify' {
  interface FastifyInstance {
    usageStatistics: UsageStatistics
  }
}

export function createUsageStatistics(store: RecordStore): UsageStatistics {
  const users = store.collection<UserRecord>('users')
  return {
    async activeUsers(environmentId) {
      // An indexed count over the derived `activeEnvironmentIds`: no user record is loaded.
      return users.count({ activeEnvironmentIds: environmentId })
    },
  }
}

/** The size of an environment. */
export const usageStatisticsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    // The users service creates this index too; ensuring it here keeps the count indexed when this service
    // runs alone against a store the users service has not opened yet (ensureIndex is idempotent).
    await store
      .collection<UserRecord>('users')
      .ensureIndex({ name: 'activeEnvironmentIds', fields: { activeEnvironmentIds: 1 } })
    app.decorate('usageStatistics', createUsageStatistics(store))
  },
  { name: 'packages-usage-statistics', fastify: '5.x' },
)
