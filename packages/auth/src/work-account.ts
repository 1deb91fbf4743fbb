import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'
import { runAccounted } from '@quire/records'
import { DEFAULT_WORK_QUEUE_PER_ENVIRONMENT } from '@quire/service-kit'

export interface WorkAccountOptions {
  /** Costly store work of one environment that may wait for its turn (`QUIRE_WORK_QUEUE_PER_ENVIRONMENT`). */
  queueLimit?: number
}

/**
 * The environment `requireEnvironment` checked for the request's route; none on a route without it, whatever
 * `environment-id` says: an unchecked header must not spend another environment's share. (The scope's getter
 * throws off those routes: auth has no way to ask without it.)
 */
function checkedEnvironment(request: FastifyRequest): string | undefined {
  try {
    return request.scope.environmentId
  } catch {
    return undefined
  }
}

/**
 * Runs each request's handler on its environment's work account, so the store charges its costly reads and writes
 * to that environment and shares the event loop out between environments. A pre-handler: the route's
 * `requireEnvironment` (an `onRequest` hook) has run by then. `done` is called inside the context, so the handler
 * and all it starts run there.
 */
export const workAccountPlugin = fp<WorkAccountOptions>(
  async (app, { queueLimit = DEFAULT_WORK_QUEUE_PER_ENVIRONMENT }) => {
    app.addHook('preHandler', (request, _reply, done) => {
      const id = checkedEnvironment(request)
      if (id === undefined) done()
      else runAccounted({ id, queueLimit }, done)
    })
  },
  { name: '@quire/work-account', fastify: '5.x' },
)
