import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'

/** What only the users service reads; the gateway merges it into its own schema to mount the service. */
export const UsersConfigSchema = Type.Object({
  QUIRE_ENVIRONMENT_ID: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$', default: 'default' }),
  QUIRE_ADMIN_USERNAME: Type.String({ minLength: 1, maxLength: 320, default: 'admin' }),
  QUIRE_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
  QUIRE_ACCESS_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
})
export type UsersConfig = Static<typeof UsersConfigSchema>

export const ConfigSchema = Type.Composite([CommonConfigSchema, UsersConfigSchema])
export type Config = Static<typeof ConfigSchema>
