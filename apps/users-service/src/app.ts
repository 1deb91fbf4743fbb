import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, recordsIdentity, type KeyPair } from '@quire/auth'
import type { RecordStore } from '@quire/records'
import type { UsersConfig } from './config.js'
import { accounts } from './plugins/accounts.js'
import { bootstrap } from './plugins/bootstrap.js'
import { environmentsRepository } from './plugins/environments-repository.js'
import { ensureIndexes } from './plugins/indexes.js'
import { loginThrottle } from './plugins/login-throttle.js'
import { longLivedTokensRepository } from './plugins/long-lived-tokens.js'
import { mailer } from './plugins/mailer.js'
import { passwordReset } from './plugins/password-reset.js'
import { twoFactor } from './plugins/two-factor.js'
import { usersRepository } from './plugins/users-repository.js'
import { authRoutes } from './routes/auth.js'
import { environmentsRoutes } from './routes/environments.js'
import { longLivedTokenRoutes } from './routes/long-lived-tokens.js'
import { usersRoutes } from './routes/users.js'

export interface UsersAppOptions {
  store: RecordStore
  keys: KeyPair
  config: UsersConfig
  /**
   * Epoch ms for TOTP steps, reset token expiry and login throttle windows (tests pass a fixed clock).
   * Access token issue times stay on the real clock, as the auth plugin's checks are.
   */
  now?: () => number
}

/** The users service: accounts, login, tokens, password reset, 2FA, environments. Never listens itself. */
export const app: FastifyPluginAsync<UsersAppOptions> = async (fastify, { store, keys, config, now = Date.now }) => {
  await ensureIndexes(store)
  await bootstrap(store, config, fastify.log)
  await fastify.register(authPlugin, {
    keys,
    identity: recordsIdentity(store),
    accessTokenTtl: config.QUIRE_ACCESS_TOKEN_TTL,
  })

  const users = usersRepository(store)
  const throttle = loginThrottle(store, {
    maxPerAccount: config.QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT,
    maxPerAddress: config.QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS,
    windowSeconds: config.QUIRE_LOGIN_WINDOW_SECONDS,
    now,
  })
  const auth = {
    users,
    accounts: accounts(store, { throttle, twoFactor: twoFactor({ issuer: config.QUIRE_TOTP_ISSUER, now }) }),
    passwordReset: passwordReset(store, {
      mailer: mailer(store, { smtpUrl: config.QUIRE_SMTP_URL, from: config.QUIRE_MAIL_FROM, log: fastify.log }),
      ttlSeconds: config.QUIRE_RESET_TOKEN_TTL,
      now,
    }),
    accessTokenTtl: config.QUIRE_ACCESS_TOKEN_TTL,
  }
  await fastify.register(authRoutes, { ...auth, prefix: '/auth' })
  await fastify.register(authRoutes, { ...auth, prefix: '/api/v2/auth' })
  await fastify.register(usersRoutes, { users, prefix: '/api/v2/users' })
  await fastify.register(longLivedTokenRoutes, {
    users,
    tokens: longLivedTokensRepository(store),
    prefix: '/api/v2/users',
  })
  await fastify.register(environmentsRoutes, {
    environments: environmentsRepository(store),
    prefix: '/api/v2/environments',
  })
}

export default app
export { UsersConfigSchema, type UsersConfig } from './config.js'
