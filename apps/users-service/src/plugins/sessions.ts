import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createSessions, type Sessions, type SessionsOptions } from '../domain/sessions.js'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: Sessions
  }
}

/** `app.sessions`: renewable sign-ins, whose access tokens every service refuses once they end. */
export const sessionsPlugin = fp(
  async (app: FastifyInstance, options: SessionsOptions) => {
    app.decorate('sessions', createSessions(options))
  },
  { name: '@quire/users-sessions', fastify: '5.x' },
)
