import type {
  MarketplacePackage,
  Package,
  PackageBody,
  PackageVersion,
  PackageVersionBody,
  PackageVersionPatch,
  PackagesQuery,
} from '@quire/contracts'
import { DuplicateKeyError, newObjectId, type Filter, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { PACKAGES_COLLECTIONS } from '../collections.js'
import { byVersionDescending, isCanonicalVersion } from '../lib/version-numbers.js'

export interface Marketplace {
  createPackage(body: PackageBody, userId: string): Promise<Package>
  /** A page in `_id` order; `allVersions` false shows only the versions available on the marketplace. */
  listPackages(
    query: PackagesQuery,
    allVersions: boolean,
  ): Promise<{ packages: MarketplacePackage[]; hasNext: boolean }>
  addVersion(packageId: string, body: PackageVersionBody, userId: string): Promise<PackageVersion>
  updateVersion(
    packageId: string,
    versionId: string,
    patch: PackageVersionPatch,
    userId: string,
  ): Promise<PackageVersion>
}

const systemFields = (userId: string) => {
  const now = new Date().toISOString()
  return { _createdOn: now, _createdByUserId: userId, _lastModifiedOn: now, _lastModifiedByUserId: userId }
}

function checkVersionNumber(versionNumber: string): void {
  if (!isCanonicalVersion(versionNumber)) {
    throw fail(
      'validation_error',
      `body/versionNumber must be a semantic version such as 1.2.0 or 2.0.0-beta.1, got "${versionNumber}"`,
      'The version number is not a valid semantic version',
    )
  }
}

export function createMarketplace(store: RecordStore): Marketplace {
  const packages = PACKAGES_COLLECTIONS.packages.in(store)
  const versions = PACKAGES_COLLECTIONS.packageVersions.in(store)
  const packageNotFound = (packageId: string) => fail('package_not_found', `No package ${packageId}`)

  return {
    async createPackage(body, userId) {
      try {
        return await packages.insertOne({ _id: newObjectId(), ...body, ...systemFields(userId) })
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw fail('duplicate_name', `A package named "${body.name}" exists`)
        throw err
      }
    },

    async listPackages({ limit, after }, allVersions) {
      const page = await packages.find(after === undefined ? {} : { _id: { $gt: after } }, {
        sort: { _id: 1 },
        limit: limit + 1,
      })
      const shown = page.slice(0, limit)
      const filter: Filter = { packageId: { $in: shown.map((p) => p._id) } }
      if (!allVersions) filter.availableOnMarketplace = true
      const all = (await versions.find(filter)).sort(byVersionDescending)
      return {
        packages: shown.map((p) => ({ ...p, versions: all.filter((v) => v.packageId === p._id) })),
        hasNext: page.length > limit,
      }
    },

    async addVersion(packageId, body, userId) {
      checkVersionNumber(body.versionNumber)
      if (!(await packages.findOne({ _id: packageId }, { projection: { _id: 1 } }))) throw packageNotFound(packageId)
      try {
        return await versions.insertOne({ _id: newObjectId(), packageId, ...body, ...systemFields(userId) })
      } catch (err) {
        if (err instanceof DuplicateKeyError) {
          throw fail('duplicate_name', `Package ${packageId} already has version ${body.versionNumber}`)
        }
        throw err
      }
    },

    async updateVersion(packageId, versionId, patch, userId) {
      const updated = await versions.updateOne(
        { _id: versionId, packageId },
        { $set: { ...patch, _lastModifiedOn: new Date().toISOString(), _lastModifiedByUserId: userId } },
      )
      if (!updated) throw fail('package_not_found', `No version ${versionId} of package ${packageId}`)
      return updated
    },
  }
}
