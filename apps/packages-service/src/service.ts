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
/** The operator's face (the `quire` command): the service's own rules on a store, without Fastify. */
export { createPackagesAdmin as admin, type PackagesAdmin } from './domain/admin.js'
// For tests elsewhere that check what is stored.
export { PACKAGES_COLLECTIONS } from './collections.js'
