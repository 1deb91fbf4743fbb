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
  /** Password reset requests allowed per account, and per client address, within the window (429 beyond). */
  QUIRE_RESET_MAX_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 3 }),
  QUIRE_RESET_MAX_PER_ADDRESS: Type.Integer({ minimum: 1, default: 20 }),
  QUIRE_RESET_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 3600 }),
  /** Reset mails are written to the mail outbox and, with this set, delivered from it (see the README). */
  QUIRE_SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  QUIRE_MAIL_FROM: Type.String({ minLength: 3, default: 'Quire <no-reply@localhost>' }),
  /** Issuer shown by authenticator apps. */
  QUIRE_TOTP_ISSUER: Type.String({ minLength: 1, maxLength: 100, default: 'Quire' }),
  /** Failed logins allowed per account, and per client address, within the window. */
  QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: Type.Integer({ minimum: 1, default: 10 }),
  QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 1, default: 100 }),
  QUIRE_LOGIN_WINDOW_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
  /** Days a long-lived token lives when its request names no `expiresOn`, and the most it may ask for. */
  QUIRE_LONG_LIVED_TOKEN_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 90 }),
  QUIRE_LONG_LIVED_TOKEN_MAX_DAYS: Type.Integer({ minimum: 1, maximum: 3650, default: 365 }),
  /** Requests per minute per signed-in user, and failed sign-ins per minute per address, per process; 0 = off. */
  QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 0 }),
  /** Seconds between purges of expired records (throttles, reset tokens, mails) and mail delivery retries. */
  QUIRE_PURGE_INTERVAL_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  /** Seconds a sent (or given up) mail stays in the outbox, without its secret, before it is purged. */
  QUIRE_MAIL_RETENTION_SECONDS: Type.Integer({ minimum: 0, default: 604_800 }),
})
export type UsersConfig = Static<typeof UsersConfigSchema>

export const ConfigSchema = Type.Composite([CommonConfigSchema, UsersConfigSchema])
