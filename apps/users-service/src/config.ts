import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema } from '@quire/service-kit'

/** What only the users service reads; the gateway merges it into its own schema to mount the service. */
export const UsersConfigSchema = Type.Object({
  QUIRE_ENVIRONMENT_ID: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,63}$', default: 'default' }),
  QUIRE_ADMIN_USERNAME: Type.String({ minLength: 1, maxLength: 320, default: 'admin' }),
  QUIRE_ADMIN_PASSWORD: Type.Optional(Type.String({ minLength: 8, maxLength: 1024 })),
  QUIRE_ACCESS_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
  /** Seconds a password reset token stays usable. */
  QUIRE_RESET_TOKEN_TTL: Type.Integer({ minimum: 60, maximum: 86_400, default: 3600 }),
  /** Reset mails are always written to the mail outbox (see collections.ts); with this set they are also sent. */
  QUIRE_SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  QUIRE_MAIL_FROM: Type.String({ minLength: 3, default: 'Quire <no-reply@localhost>' }),
  /** Issuer shown by authenticator apps. */
  QUIRE_TOTP_ISSUER: Type.String({ minLength: 1, maxLength: 100, default: 'Quire' }),
  /** Failed logins allowed per account, and per client address, within the window. */
  QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 10 }),
  QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 100 }),
  QUIRE_LOGIN_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
})
export type UsersConfig = Static<typeof UsersConfigSchema>

export const ConfigSchema = Type.Composite([CommonConfigSchema, UsersConfigSchema])
