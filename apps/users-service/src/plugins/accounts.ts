import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createAccounts, type Accounts, type AccountsOptions } from '../domain/accounts.js'

declare module 'fastify' {
  interface FastifyInstance {
    accounts: Accounts
  }
}

/** `app.accounts`: signing in (throttled, with the second factor) and the account's own security settings. */
export const accountsPlugin = fp(
  async (app: FastifyInstance, options: AccountsOptions) => {
    app.decorate('accounts', createAccounts(options, app.users, app.throttle, app.twoFactor))
  },
  {
    name: '@quire/users-accounts',
    fastify: '5.x',
    dependencies: ['@quire/users-repository', '@quire/users-throttle', '@quire/users-two-factor'],
  },
)
