import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'

/** What only the packages service reads; the gateway merges it into its own schema to mount the service. */
export const PackagesConfigSchema = Type.Object({})
export type PackagesConfig = Static<typeof PackagesConfigSchema>

export const ConfigSchema = Type.Composite([CommonConfigSchema, PackagesConfigSchema])
