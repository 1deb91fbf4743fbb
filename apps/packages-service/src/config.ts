import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'

/**
 * What only the packages service reads (nothing yet: it reads the common variables alone); the gateway merges it
 * into its own schema to mount the service.
 */
export const PackagesConfigSchema = Type.Object({})

export const ConfigSchema = Type.Composite([CommonConfigSchema, PackagesConfigSchema])
/** What the app reads: the common variables (QUIRE_CALLER_RATE_LIMIT_PER_MINUTE) and its own. */
export type PackagesConfig = Static<typeof ConfigSchema>
