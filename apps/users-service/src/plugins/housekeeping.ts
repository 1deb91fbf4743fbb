import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createHousekeeping, type Housekeeping, type HousekeepingOptions } from '../domain/housekeeping.js'

declare module 'fastify' {
  interface FastifyInstance {
    housekeeping: Housekeeping
  }
}

/** `app.housekeeping`, run on a timer in every replica. */
export const housekeepingPlugin = fp(
  async (app: FastifyInstance, { intervalSeconds, ...options }: HousekeepingOptions & { intervalSeconds: number }) => {
    const housekeeping = createHousekeeping(options, app.mailer)
    app.decorate('housekeeping', housekeeping)
    let timer: NodeJS.Timeout | undefined
    let stopped: Promise<void> | undefined
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        housekeeping.run().catch((err: unknown) => {
          if (!stopped) app.log.warn({ err }, 'housekeeping failed')
        })
      }, intervalSeconds * 1000)
      // Never what keeps the process alive.
      timer.unref()
    })
    // A purge stops after its transaction in progress; the store must outlive it.
    app.addHook('preClose', async () => {
      clearInterval(timer)
      stopped = housekeeping.stop()
    })
    app.addHook('onClose', async () => {
      await stopped
    })
  },
  { name: '@quire/users-housekeeping', fastify: '5.x', dependencies: ['@quire/users-mailer'] },
)
