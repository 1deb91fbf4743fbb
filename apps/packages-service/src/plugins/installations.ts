import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Package, PackageInstallation, PackageVersion } from '@quire/contracts'
import { DuplicateKeyError, newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { byVersionDescending, ensurePackageIndexes, packageCollections } from './package-records.js'

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

declare module 'fastify' {
  interface FastifyInstance {
    installations: Installations
  }
}

// Case-insensitive but accent-aware, so "apple", "Apple" tie and "Äpfel" stays apart from "apfel".
const labels = new Intl.Collator('en', { sensitivity: 'accent' })
const byLabelThenId = (a: PackageInstallation, b: PackageInstallation): number =>
  labels.compare(a.packageLabel, b.packageLabel) || (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0)

const item = (pkg: Package, version: PackageVersion, latest: Map<string, string>): PackageInstallation => ({
  packageId: pkg._id,
  packageVersionId: version._id,
  packageName: pkg.name,
  packageLabel: pkg.label,
  packageShortDescription: pkg.shortDescription,
  versionNumber: version.versionNumber,
  latestVersionNumber: latest.get(pkg._id) ?? null,
})

export function createInstallations(store: RecordStore): Installations {
  const { packages, versions, installations } = packageCollections(store)

  /** Per package, the highest version number available on the marketplace. */
  async function latestVersionNumbers(packageIds: string[]): Promise<Map<string, string>> {
    const published = await versions.find(
      { packageId: { $in: packageIds }, availableOnMarketplace: true },
      { projection: { packageId: 1, versionNumber: 1 } },
    )
    const latest = new Map<string, string>()
    for (const version of published.sort(byVersionDescending)) {
      if (!latest.has(version.packageId)) latest.set(version.packageId, version.versionNumber)
    }
    return latest
  }

  /** One installation per package and environment; true when it was created. An insert that loses a race is retried as an update. */
  async function upsert(environmentId: string, version: PackageVersion, userId: string): Promise<boolean> {
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
      const packagesById = new Map(packageList.map((p): [string, Package] => [p._id, p]))
      const versionsById = new Map(installedList.map((v): [string, PackageVersion] => [v._id, v]))
      // Packages and versions are never deleted, but a hand-edited store should not turn the list into a 500.
      return records
        .flatMap((record) => {
          const pkg = packagesById.get(record.packageId)
          const version = versionsById.get(record.packageVersionId)
          return pkg && version ? [item(pkg, version, latest)] : []
        })
        .sort(byLabelThenId)
    },

    async install(environmentId, packageVersionId, userId) {
      // Only what the marketplace offers can be installed; a draft or withdrawn version looks absent.
      const version = await versions.findOne({ _id: packageVersionId, availableOnMarketplace: true })
      const pkg = version && (await packages.findOne({ _id: version.packageId }))
      if (!version || !pkg) throw fail('package_not_found', `No package version ${packageVersionId} on the marketplace`)
      const created = await upsert(environmentId, version, userId)
      return { installation: item(pkg, version, await latestVersionNumbers([pkg._id])), created }
    },

    async remove(environmentId, packageId) {
      const removed = await installations.deleteOne({ environmentId, packageId })
      if (!removed) {
        throw fail('package_not_found', `Package ${packageId} is not installed in environment ${environmentId}`)
      }
    },
  }
}

/** Packages installed per environment. */
export const installationsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    await ensurePackageIndexes(store)
    app.decorate('installations', createInstallations(store))
  },
  { name: 'packages-installations', fastify: '5.x' },
)
