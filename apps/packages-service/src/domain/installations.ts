import type { PackageInstallation } from '@quire/contracts'
import { DuplicateKeyError, newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { PACKAGES_COLLECTIONS, type PackageRecord, type PackageVersionRecord } from '../collections.js'
import { byLabelThenId, installationItem } from '../lib/installation-items.js'
import { highestVersionPerPackage } from '../lib/version-numbers.js'

export interface Installations {
  /** Sorted by `packageLabel` (case-insensitive), ties by `packageId`, so the order is stable. */
  list(environmentId: string): Promise<PackageInstallation[]>
  /** Installs the version, or moves the installed package to it; `created` tells which. */
  install(
    environmentId: string,
    packageVersionId: string,
    userId: string,
  ): Promise<{ installation: PackageInstallation; created: boolean }>
  remove(environmentId: string, packageId: string): Promise<void>
}

export function createInstallations(store: RecordStore): Installations {
  const packages = PACKAGES_COLLECTIONS.packages.in(store)
  const versions = PACKAGES_COLLECTIONS.packageVersions.in(store)
  const installations = PACKAGES_COLLECTIONS.packageInstallations.in(store)

  /** Per package, the highest version number available on the marketplace. */
  async function latestVersionNumbers(packageIds: string[]): Promise<Map<string, string>> {
    const published = await versions.find(
      { packageId: { $in: packageIds }, availableOnMarketplace: true },
      { projection: { packageId: 1, versionNumber: 1 } },
    )
    return highestVersionPerPackage(published)
  }

  /** One installation per package and environment; true when it was created. An insert that loses a race is retried as an update. */
  async function upsert(environmentId: string, version: PackageVersionRecord, userId: string): Promise<boolean> {
    const now = new Date().toISOString()
    const key = { environmentId, packageId: version.packageId }
    const change = { $set: { packageVersionId: version._id, _lastModifiedOn: now, _lastModifiedByUserId: userId } }
    if (await installations.updateOne(key, change)) return false
    try {
      const record = {
        _id: newObjectId(),
        ...key,
        packageVersionId: version._id,
        _createdOn: now,
        _createdByUserId: userId,
        _lastModifiedOn: now,
        _lastModifiedByUserId: userId,
      }
      await installations.insertOne(record)
      return true
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err
      if (!(await installations.updateOne(key, change))) throw err
      return false
    }
  }

  return {
    async list(environmentId) {
      const records = await installations.find({ environmentId })
      if (records.length === 0) return []
      const packageIds = records.map((r) => r.packageId)
      const [packageList, installedList, latest] = await Promise.all([
        packages.find({ _id: { $in: packageIds } }),
        versions.find({ _id: { $in: records.map((r) => r.packageVersionId) } }),
        latestVersionNumbers(packageIds),
      ])
      const packagesById = new Map(packageList.map((p): [string, PackageRecord] => [p._id, p]))
      const versionsById = new Map(installedList.map((v): [string, PackageVersionRecord] => [v._id, v]))
      // Packages and versions are never deleted, but a hand-edited store should not turn the list into a 500.
      return records
        .flatMap((record) => {
          const pkg = packagesById.get(record.packageId)
          const version = versionsById.get(record.packageVersionId)
          return pkg && version ? [installationItem(pkg, version, latest)] : []
        })
        .sort(byLabelThenId)
    },

    async install(environmentId, packageVersionId, userId) {
      // Only what the marketplace offers can be installed; a draft or withdrawn version looks absent.
      const version = await versions.findOne({ _id: packageVersionId, availableOnMarketplace: true })
      const pkg = version && (await packages.findOne({ _id: version.packageId }))
      if (!version || !pkg) throw fail('package_not_found', `No package version ${packageVersionId} on the marketplace`)
      const created = await upsert(environmentId, version, userId)
      return { installation: installationItem(pkg, version, await latestVersionNumbers([pkg._id])), created }
    },

    async remove(environmentId, packageId) {
      const removed = await installations.deleteOne({ environmentId, packageId })
      if (!removed) {
        throw fail('package_not_found', `Package ${packageId} is not installed in environment ${environmentId}`)
      }
    },
  }
}
