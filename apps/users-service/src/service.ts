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
// For the `quire` command (apps/cli), which writes accounts as this service does.
export { COLLECTIONS as USERS_COLLECTIONS, ensureUsersIndexes, type UserRecord } from './collections.js'
export { hashPassword } from './lib/passwords.js'
export { usersRepositoryPlugin, type ImportedAccount } from './plugins/users-repository.js'
export { environmentsPlugin } from './plugins/environments.js'
