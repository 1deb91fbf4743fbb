import fp from 'fastify-plugin'
import { runAccounted } from '@quire/records'

export interface WorkAccountOptions {
  /** Costly reads of one environment that may wait for their turn (`QUIRE_WORK_QUEUE_PER_ENVIRONMENT`). */
  queueLimit: number
}

/**
 * Runs each request's handler on its environment's work account, so the store charges its costly reads to that
 * environment and shares the event loop out between environments. A pre-handler: the route's `requireEnvironment`
 * has checked the `environment-id` header by then. `done` is called inside the context, so the handler and all it
 * starts run there.
 */
export const workAccountPlugin = fp<WorkAccountOptions>(
  async (app, { queueLimit }) => {
    app.addHook('preHandler', (request, _reply, done) => {
      const id = request.headers['environment-id']
      if (typeof id === 'string') runAccounted({ id, queueLimit }, done)
      else done()
    })
  },
  { name: '@quire/documents-work-account', fastify: '5.x' },
)
