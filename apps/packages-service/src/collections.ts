import { defineCollection, ensureIndexes, type RecordStore } from '@quire/records'

/** Who made a record and when, as every record of this service carries them. */
interface SystemFields {
  _id: string
  _createdOn: string
  _createdByUserId: string
  _lastModifiedOn: string
  _lastModifiedByUserId: string
  [field: string]: unknown
}

/** A marketplace package, shared by every environment; stored as the API answers it. */
export interface PackageRecord extends SystemFields {
  name: string
  label: string
  shortDescription: string
}

/** A version of a package; a draft until `availableOnMarketplace`. Stored as the API answers it. */
export interface PackageVersionRecord extends SystemFields {
  packageId: string
  versionNumber: string
  availableOnMarketplace: boolean
}

/** A package installed in one environment; at most one per package and environment. */
export interface InstallationRecord extends SystemFields {
  environmentId: string
  packageId: string
  packageVersionId: string
}

/**
 * The packages service's collections, the only place their names are written. The unique indexes are the keys
 * behind 409 `duplicate_name` and "one installation per package and environment".
 */
export const PACKAGES_COLLECTIONS = {
  packages: defineCollection<PackageRecord>('packages', [{ name: 'name', fields: { name: 1 }, unique: true }]),
  packageVersions: defineCollection<PackageVersionRecord>('package_versions', [
    { name: 'packageId_versionNumber', fields: { packageId: 1, versionNumber: 1 }, unique: true },
  ]),
  packageInstallations: defineCollection<InstallationRecord>('package_installations', [
    { name: 'environmentId_packageId', fields: { environmentId: 1, packageId: 1 }, unique: true },
  ]),
} as const

/** Creates the missing indexes (idempotent); app.ts calls it once at start. */
export async function ensurePackagesIndexes(store: RecordStore): Promise<void> {
  await ensureIndexes(store, Object.values(PACKAGES_COLLECTIONS))
}
