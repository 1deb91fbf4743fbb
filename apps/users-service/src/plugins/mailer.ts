import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createMailer, type Mailer, type MailerOptions } from '../domain/mailer.js'

export type { MailTransport } from '../domain/mailer.js'

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer
  }
}

/** `app.mailer`: mails to account holders, through the outbox (see the README, "Mail"). */
export const mailerPlugin = fp(
  async (app: FastifyInstance, options: MailerOptions) => {
    const mailer = createMailer(options, app.log)
    app.decorate('mailer', mailer)
    app.addHook('onClose', () => mailer.drain())
  },
  { name: '@quire/users-mailer', fastify: '5.x' },
)
