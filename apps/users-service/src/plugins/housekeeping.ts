import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { ConflictError, type CollectionSpec, type RecordStore } from '@quire/records'
import { sweepInChunks } from '@quire/service-kit'
import { COLLECTIONS, type OutboxRecord, type PasswordResetRecord, type ThrottleRecord } from '../collections.js'

interface Housekeeping {
  /**
   * Deletes what has expired (throttle windows, reset tokens, mails) through each collection's `expiresAt` index,
   * then retries the mails due. Returns how many records went, per collection. A call while one runs joins it.
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
 * On a timer in every replica (each purge deletes a record only if it is still expired, so replicas running it
 * together conflict at worst and read again). Idempotency keys belong to the documents service: not purged here.
 */
export const housekeepingPlugin = fp(
  async (app: FastifyInstance, { store, intervalSeconds, now }: HousekeepingOptions) => {
    let closed = false
    let running: ReturnType<Housekeeping['run']> | undefined

    /**
     * Oldest first, in transactions of at most 500 records and 1 MiB (`sweepInChunks`): a flood of attempts from
     * many addresses leaves as many throttle windows, and one `deleteMany` would hold the event loop for them all.
     * Each goes only if still expired (a throttle's window may have started again since it was read).
     */
    function purge<T extends ThrottleRecord | PasswordResetRecord | OutboxRecord>(
      spec: CollectionSpec<T>,
      at: number,
    ): Promise<number> {
      const expired = { expiresAt: { $lte: at } }
      return sweepInChunks({
        read: (limit) => spec.in(store).findText(expired, { sort: { expiresAt: 1 }, limit }),
        remove: (ids) =>
          store.transaction(async (tx) => {
            const records = spec.in(tx)
            let deleted = 0
            for (const _id of ids) if (await records.deleteOne({ ...expired, _id })) deleted++
            return deleted
          }),
        raced: (error) => error instanceof ConflictError,
        stopped: () => closed,
      })
    }

    async function sweep(): ReturnType<Housekeeping['run']> {
      const at = now()
      const removed = {
        throttles: await purge(COLLECTIONS.throttles, at),
        passwordResets: await purge(COLLECTIONS.passwordResets, at),
        mailOutbox: await purge(COLLECTIONS.mailOutbox, at),
      }
      if (!closed) await app.mailer.retryDue()
      return removed
    }

    const housekeeping: Housekeeping = {
      run() {
        running ??= sweep().finally(() => {
          running = undefined
        })
        return running
      },
    }
    app.decorate('housekeeping', housekeeping)
    let timer: NodeJS.Timeout | undefined
    app.addHook('onReady', async () => {
      timer = setInterval(() => {
        housekeeping.run().catch((err: unknown) => {
          if (!closed) app.log.warn({ err }, 'housekeeping failed')
        })
      }, intervalSeconds * 1000)
      // Never what keeps the process alive.
      timer.unref()
    })
    // A purge stops after its transaction in progress; the store must outlive it. A failure went to its caller.
    app.addHook('preClose', async () => {
      closed = true
      clearInterval(timer)
    })
    app.addHook('onClose', async () => {
      await running?.catch(() => undefined)
    })
  },
  { name: '@quire/users-housekeeping', fastify: '5.x', dependencies: ['@quire/users-mailer'] },
)
