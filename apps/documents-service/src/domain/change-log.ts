import { ConflictError, sequencedId, sequencesOf, type RecordStore, type Transaction } from '@quire/records'
import { sweepInChunks } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS, type ChangeRecord, type DefinitionRecord, type DocumentRecord } from '../collections.js'
import { isoTime, type Clock } from './deps.js'

const changes = DOCUMENTS_COLLECTIONS.changes
/** Above any sequence number a log reaches (16 digits, as `sequencedId` pads them). */
const LAST_SEQ = Number.MAX_SAFE_INTEGER

/** The `_id` range of `environmentId`'s entries after `after` up to `upTo` (its `_id`s share the prefix). */
const range = (environmentId: string, after: number, upTo = LAST_SEQ) => ({
  _id: { $gt: sequencedId(environmentId, after), $lte: sequencedId(environmentId, upTo) },
})

/** What a write tells the log: its entry, in its transaction; once committed, that its environment's log grew. */
export type ChangesPort = Pick<ChangeLog, 'document'> & { committed(environmentId: string): void }

export interface ChangeLogLimits {
  /** Entries older than this go (`QUIRE_CHANGE_LOG_RETENTION_HOURS`). */
  retentionMs: number
  /** Entries of one environment kept at most (`QUIRE_CHANGE_LOG_MAX_ENTRIES`). */
  maxEntries: number
}

/**
 * The change log: one ordered log per environment, appended in the transaction of the change it tells (so no
 * committed change is missing from it and no rolled-back one is in it), read in order by the feed.
 */
export interface ChangeLog {
  /** A document write, in `tx`, the write's own transaction. */
  document(
    tx: Transaction,
    operation: ChangeRecord['operation'],
    written: DocumentRecord,
    previous: DocumentRecord | null,
  ): Promise<void>
  /** A definition's creation, change or deletion, in `tx`. */
  definition(tx: Transaction, operation: ChangeRecord['operation'], definition: DefinitionRecord): Promise<void>
  /** `environmentId`'s entries after `after`, in commit order, at most `limit`. */
  read(environmentId: string, after: number, limit: number): Promise<ChangeRecord[]>
  /** The number of `environmentId`'s last entry (swept or not); 0 before its first. */
  latest(environmentId: string): Promise<number>
  /** The number of `environmentId`'s oldest entry kept; undefined when none is. */
  oldest(environmentId: string): Promise<number | undefined>
  /** Deletes what is past retention, in transactions of at most 500 entries; resolves to how many went. */
  sweep(): Promise<number>
  /** Stops a sweep after its transaction in progress. */
  stop(): void
}

/** What a change tells; the store numbers it, the clock dates it. */
type Entry = Pick<ChangeRecord, 'environmentId' | 'definitionId' | 'target' | 'operation' | 'document' | 'previous'>

export function createChangeLog(deps: { store: RecordStore; clock: Clock; limits: ChangeLogLimits }): ChangeLog {
  const { store, clock, limits } = deps
  const counters = store.collection<{ _id: string; seq: number }>(sequencesOf(changes.name))
  let stopped = false
  let sweeping: Promise<number> | undefined

  const append = (tx: Transaction, entry: Entry) =>
    tx.append(changes.name, entry.environmentId, { ...entry, at: isoTime(clock) })

  /** Deletes the entries `filter` matches, read in `sort` order, in bounded transactions. */
  const deleteAll = (filter: Record<string, unknown>, sort: Record<string, 1>) =>
    sweepInChunks({
      read: (limit) => changes.in(store).findText(filter, { sort, limit }),
      remove: (ids) =>
        store.transaction(async (tx) => {
          let deleted = 0
          for (const _id of ids) if (await changes.in(tx).deleteOne({ _id })) deleted++
          return deleted
        }),
      raced: (error) => error instanceof ConflictError,
      stopped: () => stopped,
    })

  async function sweepAll(): Promise<number> {
    let swept = await deleteAll({ at: { $lt: new Date(clock() - limits.retentionMs).toISOString() } }, { at: 1 })
    // Past the count: each environment's oldest entries, below its last number less the bound.
    for (const { _id: environmentId, seq } of await counters.find({})) {
      if (stopped || seq <= limits.maxEntries) continue
      swept += await deleteAll(range(environmentId, 0, seq - limits.maxEntries), { _id: 1 })
    }
    return swept
  }

  return {
    document(tx, operation, written, previous) {
      return append(tx, {
        environmentId: written._environmentId,
        definitionId: written._documentDefinitionId,
        target: 'document',
        operation,
        document: written,
        ...(operation === 'update' && previous && { previous }),
      })
    },

    definition(tx, operation, definition) {
      return append(tx, {
        environmentId: definition._environmentId,
        definitionId: definition._id,
        target: 'definition',
        operation,
      })
    },

    read(environmentId, after, limit) {
      return changes.in(store).find(range(environmentId, after), { sort: { _id: 1 }, limit })
    },

    async latest(environmentId) {
      return (await counters.findOne({ _id: environmentId }))?.seq ?? 0
    },

    async oldest(environmentId) {
      const [first] = await changes.in(store).find(range(environmentId, 0), { sort: { _id: 1 }, limit: 1 })
      return first?.seq
    },

    sweep() {
      // One sweep at a time: a timer that fires while one still runs (a large backlog) joins it.
      sweeping ??= sweepAll().finally(() => {
        sweeping = undefined
      })
      return sweeping
    },

    stop() {
      stopped = true
    },
  }
}
