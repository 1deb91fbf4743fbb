import type { Identity } from '@quire/identity'

export interface UsageStatistics {
  /** Users whose entry for the environment is active. */
  activeUsers(environmentId: string): Promise<number>
}

/**
 * The size of an environment. The users service owns the users and the index the count runs on: the count
 * crosses its line only through `Identity.activeUsers`, so this service names neither.
 */
export const createUsageStatistics = (identity: Identity): UsageStatistics => ({
  activeUsers: (environmentId) => identity.activeUsers(environmentId),
})
