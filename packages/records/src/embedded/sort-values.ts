import type { StoredRecord } from '../port.js'
import type { IndexKey } from './index-keys.js'
import type { KeptRange } from './kept-range.js'

/** A record's value of one sort field, as `sortKey` gives it. */
export type SortValue = [number, number | string]

/**
 * Ranges with longer string values are not kept: the capacity counts values, so it bounds memory only while each
 * is small. A sort on long strings walks the range's entries (and reads its records) each time.
 */
const MAX_KEPT_STRING = 64

/** Writes remembered per collection, so a reader whose snapshot is a few writes behind still uses the rest. */
const RECENT_WRITES = 64

const keepable = (key: number | string): boolean => typeof key !== 'string' || key.length <= MAX_KEPT_STRING

/** A write of a collection: the stamp it started from and the ids it changed. */
export interface StampedWrite {
  before: number | undefined
  ids: string[]
}

interface CollectionValues {
  /** The collection's write stamp the values hold at (see `Engine.size`). */
  stamp: number | undefined
  /** Index ranges held whole, by range and sort fields, the least recently used first. */
  ranges: Map<string, KeptRange>
  /** The last writes, oldest first. */
  recent: StampedWrite[]
}

/** What the store tells of the writes other processes sharing it made. */
export interface ForeignWrites {
  /**
   * The writes that took the collection from stamp `from` to `to` (its stamp now), oldest first; undefined when
   * the store no longer tells them all.
   */
  since(collectionId: number, from: number | undefined, to: number | undefined): StampedWrite[] | undefined
  /** The record as the store has it now; undefined when there is none. */
  record(collectionId: number, id: string): StoredRecord | undefined
}

/** A record a write changed: as it was and as it is (either absent). */
export interface RecordChange {
  before: StoredRecord | undefined
  after: StoredRecord | undefined
}

/**
 * What one query reads of a collection's kept values: those of its snapshot's stamp. A write since (its stamp
 * moved on while the query ran, or the query's snapshot is older than this process's last writes) hides the
 * records it changed, which the query reads from the store instead.
 */
export class SortValueSnapshot {
  #hidden: ReadonlySet<string> | undefined
  #hiddenAt: number | undefined
  constructor(
    readonly cache: SortValueCache,
    readonly collectionId: number,
    readonly collection: CollectionValues,
    readonly stamp: number | undefined,
  ) {}

  /** The ids written since this snapshot's stamp (every id when the stamp is no longer among the recent writes). */
  hidden(): ReadonlySet<string> {
    const now = this.collection.stamp
    if (now === this.stamp) return EMPTY
    if (this.#hidden && this.#hiddenAt === now) return this.#hidden
    const { recent } = this.collection
    const from = recent.findIndex(({ before }) => before === this.stamp)
    this.#hidden = from < 0 ? ALL : new Set(recent.slice(from).flatMap(({ ids }) => ids))
    this.#hiddenAt = now
    return this.#hidden
  }

  /**
   * Whether the store's `stamp` is one this process's writes went through since this snapshot: what a read
   * from the snapshot on met can still be brought to the latest writes (`keepRange`).
   */
  follows(stamp: number | undefined): boolean {
    const { collection } = this
    return (
      this.cache.holds(this.collectionId, collection) &&
      this.hidden() !== ALL &&
      (collection.stamp === stamp || collection.recent.some(({ before }) => before === stamp))
    )
  }

  /** The range kept under `key`, unless a write since this snapshot's stamp left it unknown. */
  range(key: string): KeptRange | undefined {
    const { ranges } = this.collection
    const range = ranges.get(key)
    if (!range || this.hidden() === ALL) return undefined
    ranges.delete(key)
    ranges.set(key, range)
    return range
  }

  /**
   * Keeps a range read whole from this snapshot's stamp on, once the store's `stamp` is this process's latest
   * write. A read that paused may have met the records written meanwhile before or after their writes, so those
   * are taken out and put back as they are now (`current`); every other record is as the read met it.
   */
  keepRange(
    key: string,
    range: KeptRange,
    stamp: number | undefined,
    current: (id: string) => StoredRecord | undefined,
  ): void {
    const { collection } = this
    if (collection.stamp !== stamp || !this.follows(stamp) || collection.ranges.has(key)) return
    const written = this.hidden()
    const kept = written.size === 0 ? range : range.with(written, current)
    if (kept.values.some((values) => !values.every(keepable))) return
    this.cache.hold(kept.ids.length)
    collection.ranges.set(key, kept)
  }
}

const EMPTY: ReadonlySet<string> = new Set()
/** Stands for every id: the snapshot is older than the writes remembered. */
const ALL: ReadonlySet<string> = new Set()

/**
 * Whole index ranges with their candidates' sort values (`KeptRange`), as the heap of an index that narrows the
 * filter but not the sort (`ranked-entries.ts`) read them, so that the next query of a range reads none of its
 * entries. Values by record are not kept: a range not kept reads each candidate's value off its index entry
 * (`covered-fields.ts`) for about what a lookup in such a map cost, without the memory.
 *
 * Every write of a collection stores a new random stamp with its size (`Engine.putRecord`), and this process's
 * writes update what is kept of the records they change (ranges follow a record, a create adds it, a removal drops
 * it), so it stays valid from one write to the next. Another process's writes are followed as the store's journal
 * tells them (`ForeignWrites`); any other stamp (writes past the journal, a write of this process rolled back)
 * drops the collection's ranges. At most `capacity` range candidates in all: past it, the ranges used least
 * recently go first.
 */
export class SortValueCache {
  readonly #collections = new Map<number, CollectionValues>()
  #size = 0

  constructor(
    readonly capacity: number,
    private readonly foreign?: ForeignWrites,
  ) {}

  /**
   * What is kept of the collection as of `stamp`. A stamp this process has not seen is another process's latest
   * write: what is kept follows the writes since, or is dropped when the store no longer tells them.
   */
  snapshot(collectionId: number, stamp: number | undefined): SortValueSnapshot {
    let collection = this.#collections.get(collectionId)
    if (collection && !this.#knows(collection, stamp) && !this.#follow(collectionId, collection, stamp)) {
      this.drop(collectionId)
      collection = undefined
    }
    if (!collection) {
      collection = { stamp, ranges: new Map(), recent: [] }
      this.#collections.set(collectionId, collection)
    }
    return new SortValueSnapshot(this, collectionId, collection, stamp)
  }

  #knows(collection: CollectionValues, stamp: number | undefined): boolean {
    return collection.stamp === stamp || collection.recent.some(({ before }) => before === stamp)
  }

  /**
   * Brings what is kept from its stamp to `stamp` through other processes' writes, each record they changed as
   * the store has it now; false when the store does not tell those writes (or nothing is kept to bring).
   */
  #follow(collectionId: number, collection: CollectionValues, stamp: number | undefined): boolean {
    if (collection.ranges.size === 0) return false
    const writes = this.foreign?.since(collectionId, collection.stamp, stamp)
    if (!writes) return false
    for (const id of new Set(writes.flatMap(({ ids }) => ids))) {
      const record = this.foreign?.record(collectionId, id)
      // The record's entries, once per index whatever the number of its ranges kept.
      const entries = new Map<number, IndexKey[]>()
      for (const range of collection.ranges.values()) {
        let keys = entries.get(range.index.id)
        if (!keys) entries.set(range.index.id, (keys = range.entryKeys(id, record)))
        this.#size += range.follow(id, keys, record)
      }
    }
    collection.stamp = stamp
    this.#remember(collection, ...writes)
    return true
  }

  #remember(collection: CollectionValues, ...writes: StampedWrite[]): void {
    collection.recent.push(...writes)
    if (collection.recent.length > RECENT_WRITES) collection.recent.splice(0, collection.recent.length - RECENT_WRITES)
  }

  /** Whether `collection` is still what is kept of the collection (not dropped since). */
  holds(collectionId: number, collection: CollectionValues): boolean {
    return this.#collections.get(collectionId) === collection
  }

  /** Counts `count` more values held; past the capacity, makes room first. */
  hold(count: number): void {
    if (this.#size + count > this.capacity) this.#evict(count)
    this.#size += count
  }

  /** A write moved the collection's stamp from `before` to `after`, changing `records` (by `_id`). */
  changed(collectionId: number, before: number | undefined, after: number, records: Map<string, RecordChange>): void {
    const collection = this.#collections.get(collectionId)
    if (!collection) return
    if (collection.stamp !== before && !this.#follow(collectionId, collection, before)) {
      this.drop(collectionId)
      return
    }
    collection.stamp = after
    this.#remember(collection, { before, ids: [...records.keys()] })
    for (const [id, { before: was, after: is }] of records) {
      // The record's entries, once per index whatever the number of its ranges kept.
      const entries = new Map<number, [IndexKey[], IndexKey[]]>()
      for (const range of collection.ranges.values()) {
        let keys = entries.get(range.index.id)
        if (!keys) entries.set(range.index.id, (keys = [range.entryKeys(id, was), range.entryKeys(id, is)]))
        this.#size += range.update(id, keys[0], keys[1], is)
      }
    }
  }

  drop(collectionId: number): void {
    const collection = this.#collections.get(collectionId)
    if (!collection) return
    for (const range of collection.ranges.values()) this.#size -= range.ids.length
    this.#collections.delete(collectionId)
  }

  /** Makes room for `count` more and a tenth of the capacity: the ranges least recently used first. */
  #evict(count: number): void {
    let excess = this.#size + count - Math.floor(this.capacity * 0.9)
    for (const collection of this.#collections.values()) {
      for (const [key, range] of collection.ranges) {
        if (excess <= 0) return
        collection.ranges.delete(key)
        this.#size -= range.ids.length
        excess -= range.ids.length
      }
    }
  }
}
