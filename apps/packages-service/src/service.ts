import type { ServiceManifest } from '@quire/service-kit'
import { app, type PackagesAppOptions } from './app.js'

/** The public prefixes: the gateway routes them here, and app.ts mounts its routes under them. */
export const PREFIXES = {
  packages: '/api/v2/packages',
  usageStatistics: '/api/v2/usage-statistics',
} as const

/** app.ts imports PREFIXES from here: `app` is read when the gateway registers it, not while modules load. */
export const service: ServiceManifest<PackagesAppOptions> = {
  name: 'packages',
  prefixes: Object.values(PREFIXES),
  app: (instance, options) => app(instance, options),
}

export { PackagesConfigSchema, type PackagesConfig } from './config.js'
export type { PackagesAppOptions } from './app.js'
// For the gateway's tests and the `quire` command (apps/cli), which upgrades the store as a start does.
export { PACKAGES_COLLECTIONS, ensurePackagesIndexes } from './collections.js'
