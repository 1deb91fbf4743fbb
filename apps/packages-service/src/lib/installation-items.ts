import type { PackageInstallation } from '@quire/contracts'
import type { PackageRecord, PackageVersionRecord } from '../collections.js'

/** The spec's installation item: the package, its installed version, and the latest on the marketplace. */
export const installationItem = (
  pkg: PackageRecord,
  version: PackageVersionRecord,
  latestVersionNumbers: ReadonlyMap<string, string>,
): PackageInstallation => ({
  packageId: pkg._id,
  packageVersionId: version._id,
  packageName: pkg.name,
  packageLabel: pkg.label,
  packageShortDescription: pkg.shortDescription,
  versionNumber: version.versionNumber,
  latestVersionNumber: latestVersionNumbers.get(pkg._id) ?? null,
})

// Case-insensitive but accent-aware, so "apple", "Apple" tie and "Äpfel" stays apart from "apfel".
const labels = new Intl.Collator('en', { sensitivity: 'accent' })

/** By `packageLabel` (case-insensitive), ties by `packageId`, so the order is stable. */
export const byLabelThenId = (a: PackageInstallation, b: PackageInstallation): number =>
  labels.compare(a.packageLabel, b.packageLabel) || (a.packageId < b.packageId ? -1 : a.packageId > b.packageId ? 1 : 0)
