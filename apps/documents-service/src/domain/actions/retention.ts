import { setImmediate as turn } from 'node:timers/promises'
import {
  ConflictError,
  type CollectionSpec,
  type Filter,
  type RecordStore,
  type Sort,
  type StoredRecord,
} from '@quire/records'
import { sweepInChunks } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS } from '../../collections.js'
import type { ErrorLog } from './run-records.js'

const SWEEP_INTERVAL_MS = 60 * 60 * 1000

/** Deleting runs and jobs: past their retention (at start, then hourly), or with their definition. */
export function runRetention(store: RecordStore, now: () => number, log: ErrorLog) {
  let closed = false
  let sweeper: NodeJS.Timeout | undefined
  let sweeping: Promise<number> | undefined
  /** Deletions in progress (the sweep, definitions' drops): closing waits for their transaction in progress. */
  const deleting = new Set<Promise<number>>()

  /**
   * Deletes the records of `spec` that `filter` matches, read through an index (`sort`, else the filter's equality
   * prefix) and each deleted only if it still matches, in transactions of at most 500 records and 1 MiB: a tenant
   * makes runs and jobs at will, and one `deleteMany` would hold the event loop for all of them. A definition's
   * drop is its request's work, which waits for it (and is charged to its environment): it gives the loop a turn
   * between transactions, where the sweep rests.
   */
  function deleteAll<T extends StoredRecord>(
    spec: CollectionSpec<T>,
    filter: Filter,
    sort?: Sort,
    pause?: () => Promise<unknown>,
  ): Promise<number> {
    const work = sweepInChunks({
      read: (limit) => spec.in(store).findText(filter, { ...(sort && { sort }), limit }),
      remove: (ids) =>
        store.transaction(async (tx) => {
          const records = spec.in(tx)
          let deleted = 0
          for (const _id of ids) if (await records.deleteOne({ ...filter, _id })) deleted++
          return deleted
        }),
      raced: (error) => error instanceof ConflictError,
      stopped: () => closed,
      ...(pause && { pause }),
    }).finally(() => deleting.delete(work))
    deleting.add(work)
    return work
  }

  /** One sweep at a time: a timer that fires while one still runs (a large backlog) joins it. */
  function sweep(): Promise<number> {
    const expired = { expiresOn: { $lt: new Date(now()).toISOString() } }
    sweeping ??= deleteAll(DOCUMENTS_COLLECTIONS.actionRuns, expired, { expiresOn: 1 }).finally(() => {
      sweeping = undefined
    })
    return sweeping
  }

  function sweepInBackground(): void {
    sweep().catch((error: unknown) => {
      if (!closed) log.error({ err: error }, 'expired action runs could not be swept')
    })
  }

  return {
    sweep,
    /** The definition's waiting jobs, then its runs. */
    async drop(definition: { _id: string; _environmentId: string }): Promise<void> {
      await deleteAll(DOCUMENTS_COLLECTIONS.actionJobs, { definitionId: definition._id }, undefined, turn)
      await deleteAll(
        DOCUMENTS_COLLECTIONS.actionRuns,
        { environmentId: definition._environmentId, definitionId: definition._id },
        undefined,
        turn,
      )
    },
    start(): void {
      sweeper = setInterval(sweepInBackground, SWEEP_INTERVAL_MS).unref()
      setImmediate(sweepInBackground)
    },
    stop(): void {
      closed = true
      clearInterval(sweeper)
    },
    /** Each stops after its transaction in progress; the store must outlive it. A failure went to its caller. */
    async close(): Promise<void> {
      await Promise.allSettled(deleting)
    },
  }
}
