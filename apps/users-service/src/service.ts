import type { ServiceManifest } from '@quire/service-kit'
import { app, type UsersAppOptions } from './app.js'

/** The public prefixes: the gateway routes them here, and app.ts mounts its routes under them. */
export const PREFIXES = {
  users: '/api/v2/users',
  environments: '/api/v2/environments',
  /** Sign-in and account recovery, at the spec's `/auth` and again under `/api/v2`. */
  auth: '/auth',
  apiAuth: '/api/v2/auth',
} as const

/** app.ts imports PREFIXES from here: `app` is read when the gateway registers it, not while modules load. */
export const service: ServiceManifest<UsersAppOptions> = {
  name: 'users',
  prefixes: Object.values(PREFIXES),
  app: (instance, options) => app(instance, options),
}

export { UsersConfigSchema, type UsersConfig } from './config.js'
export type { UsersAppOptions } from './app.js'
/** The operator's face (the `quire` command): the service's own rules on a store, without Fastify. */
export { createUsersAdmin as admin, type UsersAdmin, type ExportedMember } from './domain/admin.js'
// For tests elsewhere that check what is stored.
export { COLLECTIONS as USERS_COLLECTIONS } from './collections.js'
