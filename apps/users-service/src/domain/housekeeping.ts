import { ConflictError, type CollectionSpec, type RecordStore } from '@quire/records'
import { sweepInChunks } from '@quire/service-kit'
import {
  COLLECTIONS,
  type OutboxRecord,
  type PasswordResetRecord,
  type SessionRecord,
  type ThrottleRecord,
} from '../collections.js'
import type { Mailer } from './mailer.js'

export interface Housekeeping {
  /**
   * Deletes what has expired (throttle windows, reset tokens, mails, sessions) through each collection's `expiresAt` index,
   * then retries the mails due. Returns how many records went, per collection. A call while one runs joins it.
   */
  run(): Promise<Record<'throttles' | 'passwordResets' | 'mailOutbox' | 'sessions', number>>
  /** A run under way stops after its transaction in progress; resolves once it has (its failure went to its caller). */
  stop(): Promise<void>
}

export interface HousekeepingOptions {
  store: RecordStore
  /** Epoch ms (tests pass a fixed clock and call `run` themselves). */
  now: () => number
}

/**
 * Each purge deletes a record only if it is still expired, so replicas running it together conflict at worst and
 * read again. Idempotency keys belong to the documents service: not purged here.
 */
export function createHousekeeping({ store, now }: HousekeepingOptions, mailer: Mailer): Housekeeping {
  let stopped = false
  let running: ReturnType<Housekeeping['run']> | undefined

  /**
   * Oldest first, in transactions of at most 500 records and 1 MiB (`sweepInChunks`): a flood of attempts from
   * many addresses leaves as many throttle windows, and one `deleteMany` would hold the event loop for them all.
   * Each goes only if still expired (a throttle's window may have started again since it was read).
   */
  function purge<T extends ThrottleRecord | PasswordResetRecord | OutboxRecord | SessionRecord>(
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
      stopped: () => stopped,
    })
  }

  async function sweep(): ReturnType<Housekeeping['run']> {
    const at = now()
    const removed = {
      throttles: await purge(COLLECTIONS.throttles, at),
      passwordResets: await purge(COLLECTIONS.passwordResets, at),
      mailOutbox: await purge(COLLECTIONS.mailOutbox, at),
      // A lapsed session's tokens are refused already; its record would only stay. A renewal racing the purge
      // moves `expiresAt` first and is kept (each deletion is conditional on it).
      sessions: await purge(COLLECTIONS.sessions, at),
    }
    if (!stopped) await mailer.retryDue()
    return removed
  }

  return {
    run() {
      running ??= sweep().finally(() => {
        running = undefined
      })
      return running
    },
    async stop() {
      stopped = true
      await running?.catch(() => undefined)
    },
  }
}
