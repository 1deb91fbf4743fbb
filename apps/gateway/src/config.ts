import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'
import { DocumentsConfigSchema } from '@quire/documents-service'
import { PackagesConfigSchema } from '@quire/packages-service'
import { UsersConfigSchema } from '@quire/users-service'

const upstream = (name: string) =>
  Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: `Where the gateway finds the ${name} service; unset = mounted in the gateway's own process (all-in-one).`,
    }),
  )

/** Where each service lives: a URL to proxy to, or absent for `local` (mounted in this process). */
const GatewayConfigSchema = Type.Object({
  QUIRE_DOCUMENTS_URL: upstream('documents'),
  QUIRE_USERS_URL: upstream('users'),
  QUIRE_PACKAGES_URL: upstream('packages'),
  QUIRE_CORS_ORIGINS: Type.String({
    default: '',
    description: 'Comma-separated allowed CORS origins (* for any); empty = CORS off.',
  }),
  QUIRE_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 0,
    // Signed-in callers are limited by the services, per user: QUIRE_CALLER_RATE_LIMIT_PER_MINUTE.
    description: 'Requests per minute per client address, for requests without credentials; 0 = unlimited.',
  }),
  QUIRE_PROCESSES: Type.Integer({
    minimum: 0,
    maximum: 64,
    default: 0,
    // Two measured against one on two cores (BENCHMARKS.md); more than the cores only share them.
    description:
      'Processes serving requests on one port and one data dir, sharing budgets and caps; 0 = one per core, at most 2.',
  }),
  QUIRE_MAX_EVENT_LOOP_DELAY_MS: Type.Integer({
    minimum: 10,
    default: 1000,
    description: 'Event-loop delay (ms) past which the gateway answers 503 instead of queueing requests up.',
  }),
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
