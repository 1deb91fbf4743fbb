import { writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { renderEnvExample } from '@quire/service-kit'
import { ConfigSchema } from './config.js'

const HEADER = `Every variable a Quire server reads, with its default: generated from the config schemas by \`npm run env:example\` (a test fails when this file differs). All are optional.
Copy to .env beside where you start Quire (it is read at start; variables already in the environment win), or export them.
Any variable can come from a file instead: NAME_FILE=/path/to/file (key files, Docker secrets).`

/**
 * Descriptions of variables whose schema has none (the services' own config modules): a schema `description`
 * wins, so each line here can go once its variable's owner describes it there.
 */
const DESCRIPTIONS: Readonly<Record<string, string>> = {
  QUIRE_S3_ENDPOINT: 'Set to keep attachment files in MinIO / S3 instead of the data dir (host name, e.g. localhost).',
  QUIRE_S3_PORT: 'S3 port (e.g. 9000 for MinIO).',
  QUIRE_S3_USE_SSL: 'Speak HTTPS to the S3 endpoint.',
  QUIRE_S3_ACCESS_KEY: 'S3 access key.',
  QUIRE_S3_SECRET_KEY: 'S3 secret key.',
  QUIRE_S3_BUCKET: 'Bucket for attachment files; the documents service creates it when missing.',
  QUIRE_S3_REGION: 'S3 region.',
  QUIRE_MAX_FILE_SIZE: 'Largest attachment in bytes.',
  QUIRE_MAX_FILES: 'Most files in one upload call.',
  QUIRE_UPLOAD_DIR: 'Where uploads are spooled on their way to the file store (default: the OS temp dir).',
  QUIRE_ENVIRONMENT_ID:
    'First start on an empty store: this environment is created, administered by the super-administrator below.',
  QUIRE_ADMIN_USERNAME: 'First start on an empty store: the super-administrator created.',
  QUIRE_ADMIN_PASSWORD: 'Their password; generated and printed once when unset.',
  QUIRE_ACCESS_TOKEN_TTL: 'Seconds an access token (JWT) stays valid.',
  QUIRE_RESET_TOKEN_TTL: 'Seconds a password reset token stays usable.',
  QUIRE_RESET_MAX_PER_ACCOUNT: 'Password reset requests allowed per account within the reset window (429 beyond).',
  QUIRE_RESET_MAX_PER_ADDRESS: 'Password reset requests allowed per client address within the reset window.',
  QUIRE_RESET_WINDOW_SECONDS: 'The reset window, in seconds.',
  QUIRE_SMTP_URL:
    'Reset mails are always written to the mail outbox; with this set (smtp:// or smtps://) they are also sent.',
  QUIRE_MAIL_FROM: 'Sender of the mails Quire sends.',
  QUIRE_TOTP_ISSUER: 'Issuer shown by authenticator apps.',
  QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: 'Failed logins allowed per account within the window.',
  QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: 'Failed logins allowed per client address within the window.',
  QUIRE_LOGIN_WINDOW_SECONDS: 'The window of the two limits above, in seconds.',
  QUIRE_LONG_LIVED_TOKEN_DAYS: 'Days a long-lived token lives when its request names no expiresOn.',
  QUIRE_LONG_LIVED_TOKEN_MAX_DAYS: 'The most days a long-lived token may ask for.',
  QUIRE_CALLER_RATE_LIMIT_PER_MINUTE:
    'Requests per minute per signed-in user, and failed sign-ins per minute per address, per process; 0 = off.',
  QUIRE_PURGE_INTERVAL_SECONDS:
    'Seconds between purges of expired records (throttles, reset tokens, mails) and mail delivery retries.',
  QUIRE_MAIL_RETENTION_SECONDS:
    'Seconds a sent (or given up) mail stays in the outbox, without its secret, before it is purged.',
}

/** Variables described neither in their schema nor above: a new variable needs a `description` in its schema. */
export const undescribed = (): string[] =>
  Object.entries(ConfigSchema.properties)
    .filter(([name, property]) => !(property as { description?: string }).description && !DESCRIPTIONS[name])
    .map(([name]) => name)

/** The text `.env.example` holds: every variable of the all-in-one gateway, which reads every service's too. */
export const envExample = (): string => renderEnvExample(ConfigSchema, { header: HEADER, descriptions: DESCRIPTIONS })

/** Where `.env.example` lives: the repository root, from `apps/gateway/{src,dist}`. */
export const ENV_EXAMPLE_PATH = fileURLToPath(new URL('../../../.env.example', import.meta.url))

// `node apps/gateway/dist/env-example.js` (npm run env:example) writes the file.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ENV_EXAMPLE_PATH, envExample())
}
