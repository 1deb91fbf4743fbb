import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStore } from '@quire/records'
import { COLLECTIONS } from '../collections.js'

interface Housekeeping {
  /**
   * Deletes what has expired (throttle windows, reset tokens, mails) through each collection's `expiresAt` index,
   * then retries the mails due. Returns how many records went, per collection.
   */
  run(): Promise<Record<'throttles' | 'passwordResets' | 'mailOutbox', number>>
}

declare module 'fastify' {
  interface FastifyInstance {
    housekeeping: Housekeeping
  }
}

interface HousekeepingOptions {
  store: RecordStore
  intervalSeconds: number
  /** Epoch ms (tests pass a fixed clock and call `run` themselves). */
  now: () => number
}

/**
 * On a timer in every replica (each purge is idempotent, so replicas running it together only repeat a cheap
 * indexed delete). Idempotency keys belong to the documents service: not purged here.
 */
export const housekeepingPlugin = fp(
  async (app: FastifyInstance, { store, intervalSeconds, now }: HousekeepingOptions) => {
    const housekeeping: Housekeeping = {
      async run() {
        const expired = { expiresAt: { $lte: now() } }
        const removed = {
          throttles: await COLLECTIONS.throttles.in(store).deleteMany(expired),
          passwordResets: await COLLECTIONS.passwordResets.in(store).deleteMany(expired),
          mailOutbox: await COLLECTIONS.mailOutbox.in(store).deleteMany(expired),
        }
        await app.mailer.retryDue()
        return removed
      },
    }
    app.decorate('housekeeping', housekeeping)
    let timer: NodeJS.Timeout | undefined
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        housekeeping.run().catch((err: unknown) => app.log.warn({ err }, 'housekeeping failed'))
      }, intervalSeconds * 1000)
      // Never what keeps the process alive.
      timer.unref()
    })
    app.addHook('onClose', async () => clearInterval(timer))
  },
  { name: '@quire/users-housekeeping', fastify: '5.x', dependencies: ['@quire/users-mailer'] },
)
