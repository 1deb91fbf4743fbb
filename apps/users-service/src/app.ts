import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, workAccountPlugin, type KeyPair } from '@quire/auth'
import { recordsIdentity } from '@quire/identity'
import type { SharedCounts } from '@quire/service-kit'
import type { RecordStore } from '@quire/records'
import { ensureUsersIndexes } from './collections.js'
import type { UsersConfig } from './config.js'
import { RetryLater } from './lib/fail.js'
import { accountsPlugin } from './plugins/accounts.js'
import { bootstrapPlugin } from './plugins/bootstrap.js'
import { environmentsPlugin } from './plugins/environments.js'
import { housekeepingPlugin } from './plugins/housekeeping.js'
import { longLivedTokensPlugin } from './plugins/long-lived-tokens.js'
import { mailerPlugin, type MailTransport } from './plugins/mailer.js'
import { passwordResetPlugin } from './plugins/password-reset.js'
import { sessionsPlugin } from './plugins/sessions.js'
import { throttlePlugin } from './plugins/throttle.js'
import { twoFactorPlugin } from './plugins/two-factor.js'
import { usersRepositoryPlugin } from './plugins/users-repository.js'
import { authRoutes } from './routes/auth.js'
import { environmentsRoutes } from './routes/environments.js'
import { longLivedTokenRoutes } from './routes/long-lived-tokens.js'
import { sessionsRoutes } from './routes/sessions.js'
import { usersRoutes } from './routes/users.js'
import { PREFIXES } from './service.js'

export interface UsersAppOptions {
  store: RecordStore
  keys: KeyPair
  /** Where budgets and caps are counted: every process of the server (absent: this app's own memory). */
  counts?: SharedCounts
  config: UsersConfig
  /**
   * Epoch ms for TOTP steps, reset token expiry and login throttle windows (tests pass a fixed clock).
   * Access token issue times and long-lived token expiries stay on the real clock, as the auth plugin's checks are.
   */
  now?: () => number
  /** Where mails are handed over instead of SMTP (tests). */
  mailTransport?: MailTransport
}

/** The users service: accounts, login, tokens, password reset, 2FA, environments. Never listens itself. */
export const app: FastifyPluginAsync<UsersAppOptions> = async (fastify, options) => {
  const { store, keys, config, counts, now = Date.now } = options
  const clashing = await ensureUsersIndexes(store)
  if (clashing.length > 0) {
    fastify.log.warn(
      { userIds: clashing },
      'accounts whose username differs from an older one only by case or form sign in by their exact username only',
    )
  }
  // Validation errors keep Ajv's text as `description`; people read the contracts' plain `userDescription`.
  fastify.addHook('onError', async function retryAfterHeader(_request, reply, error) {
    if (error instanceof RetryLater) reply.header('retry-after', String(error.retryAfter))
  })
  await fastify.register(authPlugin, {
    keys,
    identity: recordsIdentity(store),
    accessTokenTtl: config.QUIRE_ACCESS_TOKEN_TTL,
    callerRateLimitPerMinute: config.QUIRE_CALLER_RATE_LIMIT_PER_MINUTE,
    counts,
  })
  await fastify.register(workAccountPlugin, { queueLimit: config.QUIRE_WORK_QUEUE_PER_ENVIRONMENT })

  await fastify.register(bootstrapPlugin, {
    store,
    environmentId: config.QUIRE_ENVIRONMENT_ID,
    username: config.QUIRE_ADMIN_USERNAME,
    password: config.QUIRE_ADMIN_PASSWORD,
  })
  await fastify.register(usersRepositoryPlugin, { store })
  await fastify.register(environmentsPlugin, { store })
  await fastify.register(longLivedTokensPlugin, {
    store,
    defaultDays: config.QUIRE_LONG_LIVED_TOKEN_DAYS,
    maxDays: config.QUIRE_LONG_LIVED_TOKEN_MAX_DAYS,
  })
  await fastify.register(throttlePlugin, { store, now })
  if (!keys.secretsKey) {
    // Generated beside a generated key pair only: with the private key given, each replica would seal with its own.
    throw new Error('the users service needs the secrets key: set QUIRE_SECRETS_KEY beside QUIRE_JWT_PRIVATE_KEY')
  }
  await fastify.register(twoFactorPlugin, { store, issuer: config.QUIRE_TOTP_ISSUER, now, secretsKey: keys.secretsKey })
  await fastify.register(accountsPlugin, {
    store,
    maxPerAccount: config.QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT,
    maxPerAddress: config.QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS,
    windowSeconds: config.QUIRE_LOGIN_WINDOW_SECONDS,
  })
  await fastify.register(mailerPlugin, {
    store,
    smtpUrl: config.QUIRE_SMTP_URL,
    from: config.QUIRE_MAIL_FROM,
    retentionSeconds: config.QUIRE_MAIL_RETENTION_SECONDS,
    now,
    transport: options.mailTransport,
  })
  await fastify.register(passwordResetPlugin, {
    store,
    ttlSeconds: config.QUIRE_RESET_TOKEN_TTL,
    maxPerAccount: config.QUIRE_RESET_MAX_PER_ACCOUNT,
    maxPerAddress: config.QUIRE_RESET_MAX_PER_ADDRESS,
    windowSeconds: config.QUIRE_RESET_WINDOW_SECONDS,
    now,
  })
  await fastify.register(sessionsPlugin, { store, now })
  await fastify.register(housekeepingPlugin, { store, intervalSeconds: config.QUIRE_PURGE_INTERVAL_SECONDS, now })

  const auth = { accessTokenTtl: config.QUIRE_ACCESS_TOKEN_TTL }
  await fastify.register(authRoutes, { ...auth, prefix: PREFIXES.auth })
  await fastify.register(authRoutes, { ...auth, prefix: PREFIXES.apiAuth })
  for (const prefix of [PREFIXES.auth, PREFIXES.apiAuth]) {
    await fastify.register(sessionsRoutes, { ...auth, prefix: `${prefix}/sessions` })
  }
  await fastify.register(usersRoutes, { prefix: PREFIXES.users })
  await fastify.register(longLivedTokenRoutes, { prefix: PREFIXES.users })
  await fastify.register(environmentsRoutes, { prefix: PREFIXES.environments })
}
