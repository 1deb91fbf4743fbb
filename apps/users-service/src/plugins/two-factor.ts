import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createTwoFactor, sealStoredInClear, type TwoFactor, type TwoFactorOptions } from '../domain/two-factor.js'

declare module 'fastify' {
  interface FastifyInstance {
    twoFactor: TwoFactor
  }
}

/**
 * `app.twoFactor`: TOTP secrets and codes, and recovery codes. Holds no state: the caller stores what it returns.
 * At start, seals what an earlier version stored in clear.
 */
export const twoFactorPlugin = fp(
  async (app: FastifyInstance, options: TwoFactorOptions) => {
    const changed = await sealStoredInClear(options.store, options.secretsKey)
    if (changed > 0) app.log.info({ users: changed }, 'sealed the 2FA secrets stored in clear by an earlier version')
    app.decorate('twoFactor', createTwoFactor(options))
  },
  { name: '@quire/users-two-factor', fastify: '5.x' },
)
