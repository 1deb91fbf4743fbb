import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createThrottle, type Throttle, type ThrottleOptions } from '../domain/throttle.js'

declare module 'fastify' {
  interface FastifyInstance {
    throttle: Throttle
  }
}

/** `app.throttle`: attempt budgets (logins, password resets) shared by every replica through the store. */
export const throttlePlugin = fp(
  async (app: FastifyInstance, options: ThrottleOptions) => {
    app.decorate('throttle', createThrottle(options))
  },
  { name: '@quire/users-throttle', fastify: '5.x' },
)
