import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema, type CommonConfig } from '@quire/service-kit'

/**
 * What only the packages service reads (nothing yet: it reads the common variables alone); the gateway merges it
 * into its own schema to mount the service.
 */
export const PackagesConfigSchema = Type.Object({})

/** What the app reads: its own variables, and of the common ones the caller rate limit (absent: off) and queue. */
export type PackagesConfig = Static<typeof PackagesConfigSchema> &
  Partial<Pick<CommonConfig, 'QUIRE_CALLER_RATE_LIMIT_PER_MINUTE' | 'QUIRE_WORK_QUEUE_PER_ENVIRONMENT'>>

export const ConfigSchema = Type.Composite([CommonConfigSchema, PackagesConfigSchema])
