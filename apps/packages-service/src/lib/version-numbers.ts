import semver from 'semver'

/** Canonical semver only: no `v` prefix and no build metadata, which semver ignores when ordering versions. */
export const isCanonicalVersion = (versionNumber: string): boolean => semver.valid(versionNumber) === versionNumber

/** Semver precedence, highest first: releases above their pre-releases, numeric parts compared as numbers. */
export const byVersionDescending = (a: { versionNumber: string }, b: { versionNumber: string }): number =>
  semver.rcompare(a.versionNumber, b.versionNumber)

/** Per package, the highest of the given version numbers. */
export function highestVersionPerPackage(
  versions: readonly { packageId: string; versionNumber: string }[],
): Map<string, string> {
  const highest = new Map<string, string>()
  for (const version of [...versions].sort(byVersionDescending)) {
    if (!highest.has(version.packageId)) highest.set(version.packageId, version.versionNumber)
  }
  return highest
}
