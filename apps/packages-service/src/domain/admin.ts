import type { RecordStore } from '@quire/records'
import { PACKAGES_COLLECTIONS, ensurePackagesIndexes } from '../collections.js'

/**
 * What the `quire` command does to the packages service's data. The marketplace is shared by every environment
 * and an installation names a package version of this store, so an environment's export carries none of it.
 */
export interface PackagesAdmin {
  /** The collections the service owns, by name. */
  readonly collections: readonly string[]
  /** Creates the missing indexes (what a start does). */
  ensureIndexes(): Promise<void>
}

export const createPackagesAdmin = (store: RecordStore): PackagesAdmin => ({
  collections: Object.values(PACKAGES_COLLECTIONS).map(({ name }) => name),
  ensureIndexes: () => ensurePackagesIndexes(store),
})
