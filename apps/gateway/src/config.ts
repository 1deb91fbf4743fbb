import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'
import { DocumentsConfigSchema } from '@quire/documents-service'
import { PackagesConfigSchema } from '@quire/packages-service'
import { UsersConfigSchema } from '@quire/users-service'

const Upstream = Type.Optional(Type.String({ pattern: '^https?://' }))

/** Where each service lives: a URL to proxy to, or absent for `local` (mounted in this process). */
export const GatewayConfigSchema = Type.Object({
  QUIRE_DOCUMENTS_URL: Upstream,
  QUIRE_USERS_URL: Upstream,
  QUIRE_PACKAGES_URL: Upstream,
  /** Comma-separated allowed CORS origins; empty = CORS off. */
  QUIRE_CORS_ORIGINS: Type.String({ default: '' }),
  /** Requests per minute per token (or per address); 0 = unlimited. */
  QUIRE_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 0 }),
  QUIRE_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({ minimum: 10, default: 1000 }),
})

/** The gateway reads every service's variables too, since any of them may be mounted locally. */
export const ConfigSchema = Type.Composite([
  CommonConfigSchema,
  GatewayConfigSchema,
  DocumentsConfigSchema,
  UsersConfigSchema,
  PackagesConfigSchema,
])
export type Config = Static<typeof ConfigSchema>
