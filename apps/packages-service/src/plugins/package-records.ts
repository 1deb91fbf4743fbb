import semver from 'semver'
import type { Package, PackageVersion } from '@quire/contracts'
import type { RecordStore } from '@quire/records'

/** A package installed in one environment; at most one per package and environment. */
export interface InstallationRecord {
  _id: string
  environmentId: string
  packageId: string
  packageVersionId: string
  _createdOn: string
  _createdByUserId: string
  _lastModifiedOn: string
  _lastModifiedByUserId: string
  [field: string]: unknown
}

/** The collections of the marketplace (global) and of installations (per environment). */
export function packageCollections(store: RecordStore) {
  return {
    packages: store.collection<Package>('packages'),
    versions: store.collection<PackageVersion>('package_versions'),
    installations: store.collection<InstallationRecord>('package_installations'),
  }
}

/** The indexes the package queries rely on, and the unique keys behind 409 and "one installation per package". */
export async function ensurePackageIndexes(store: RecordStore): Promise<void> {
  const { packages, versions, installations } = packageCollections(store)
  await packages.ensureIndex({ name: 'name', fields: { name: 1 }, unique: true })
  await versions.ensureIndex({
    name: 'packageId_versionNumber',
    fields: { packageId: 1, versionNumber: 1 },
    unique: true,
  })
  await installations.ensureIndex({
    name: 'environmentId_packageId',
    fields: { environmentId: 1, packageId: 1 },
    unique: true,
  })
}

/** Semver precedence, highest first: releases above their pre-releases, numeric parts compared as numbers. */
export const byVersionDescending = (a: { versionNumber: string }, b: { versionNumber: string }): number =>
  semver.rcompare(a.versionNumber, b.versionNumber)
