import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema, type CommonConfig } from '@quire/service-kit'

/** What only the users service reads; the gateway merges it into its own schema to mount the service. */
export const UsersConfigSchema = Type.Object({
  QUIRE_ENVIRONMENT_ID: Type.String({
    pattern: '^[a-z0-9][a-z0-9_-]{0,63}$',
    default: 'default',
    description:
      'First start on an empty store: this environment is created, administered by the super-administrator below.',
  }),
  QUIRE_ADMIN_USERNAME: Type.String({
    minLength: 1,
    maxLength: 320,
    default: 'admin',
    description: 'First start on an empty store: the super-administrator created.',
  }),
  QUIRE_ADMIN_PASSWORD: Type.Optional(
    Type.String({
      minLength: 8,
      maxLength: 1024,
      description: 'Their password; generated and printed once when unset.',
    }),
  ),
  QUIRE_ACCESS_TOKEN_TTL: Type.Integer({
    minimum: 60,
    maximum: 86_400,
    default: 3600,
    description: 'Seconds an access token (JWT) stays valid.',
  }),
  QUIRE_RESET_TOKEN_TTL: Type.Integer({
    minimum: 60,
    maximum: 86_400,
    default: 3600,
    description: 'Seconds a password reset token stays usable.',
  }),
  QUIRE_RESET_MAX_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    default: 3,
    description: 'Password reset requests allowed per account within the reset window (429 beyond).',
  }),
  QUIRE_RESET_MAX_PER_ADDRESS: Type.Integer({
    minimum: 1,
    default: 20,
    description: 'Password reset requests allowed per client address within the reset window.',
  }),
  QUIRE_RESET_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 3600,
    description: 'The reset window, in seconds.',
  }),
  // How mails are delivered and retried from the outbox: see the README.
  QUIRE_SMTP_URL: Type.Optional(
    Type.String({
      pattern: '^smtps?://',
      description:
        'Reset mails are always written to the mail outbox; with this set (smtp:// or smtps://) they are also sent.',
    }),
  ),
  QUIRE_MAIL_FROM: Type.String({
    minLength: 3,
    default: 'Quire <no-reply@localhost>',
    description: 'Sender of the mails Quire sends.',
  }),
  QUIRE_TOTP_ISSUER: Type.String({
    minLength: 1,
    maxLength: 100,
    default: 'Quire',
    description: 'Issuer shown by authenticator apps.',
  }),
  QUIRE_SECRETS_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'Key sealing 2FA secrets at rest: 32 bytes in base64 (`openssl rand -base64 32`). Required with QUIRE_JWT_PRIVATE_KEY, the same for every users service replica; with neither, one is generated into $QUIRE_DATA_DIR/keys.',
    }),
  ),
  QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'Failed logins allowed per account within the window.',
  }),
  QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: Type.Integer({
    minimum: 1,
    default: 100,
    description: 'Failed logins allowed per client address within the window.',
  }),
  QUIRE_LOGIN_WINDOW_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 900,
    description: 'The window of the two limits above, in seconds.',
  }),
  QUIRE_LONG_LIVED_TOKEN_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 90,
    description: 'Days a long-lived token lives when its request names no expiresOn.',
  }),
  QUIRE_LONG_LIVED_TOKEN_MAX_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 365,
    description: 'The most days a long-lived token may ask for.',
  }),
  QUIRE_PURGE_INTERVAL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    default: 60,
    description:
      'Seconds between purges of expired records (throttles, reset tokens, mails) and mail delivery retries.',
  }),
  QUIRE_MAIL_RETENTION_SECONDS: Type.Integer({
    minimum: 0,
    default: 604_800,
    description: 'Seconds a sent (or given up) mail stays in the outbox, without its secret, before it is purged.',
  }),
})

/** What the app reads: its own variables, and of the common ones the caller rate limit (absent: off) and queue. */
export type UsersConfig = Static<typeof UsersConfigSchema> &
  Partial<Pick<CommonConfig, 'QUIRE_CALLER_RATE_LIMIT_PER_MINUTE' | 'QUIRE_WORK_QUEUE_PER_ENVIRONMENT'>>

export const ConfigSchema = Type.Composite([CommonConfigSchema, UsersConfigSchema])
