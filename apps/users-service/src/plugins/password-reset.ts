import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createPasswordReset, type PasswordReset, type PasswordResetOptions } from '../domain/password-reset.js'

declare module 'fastify' {
  interface FastifyInstance {
    passwordReset: PasswordReset
  }
}

/** `app.passwordReset`: a single-use token mailed to the account's address, then a new password. */
export const passwordResetPlugin = fp(
  async (app: FastifyInstance, options: PasswordResetOptions) => {
    app.decorate('passwordReset', createPasswordReset(options, app.users, app.mailer, app.throttle))
  },
  {
    name: '@quire/users-password-reset',
    fastify: '5.x',
    dependencies: ['@quire/users-mailer', '@quire/users-repository', '@quire/users-throttle'],
  },
)
