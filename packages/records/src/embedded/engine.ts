import { randomUUID } from 'node:crypto'
import { totalmem } from 'node:os'
import { join } from 'node:path'
import { open, type Database, type Key, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb'
import { DuplicateKeyError, RecordsError, StoreUnavailableError } from '../errors.js'
import { guardCommitFailures, writeFailure } from './commit-failures.js'
import type { IndexInfo, IndexSpec, StoredRecord } from '../port.js'
import {
  indexEntries,
  isIndexed,
  keyedByValues,
  sameSpec,
  type IndexEntries,
  type IndexKey,
  type StoredIndex,
} from './index-keys.js'
import { PRIVATE_FILE_MODE } from './private-modes.js'
import { prewarm } from './prewarm.js'
import { Row } from './row.js'
import { spent, turn, writeTurn } from './long-work.js'
import { SortValueCache, type RecordChange, type StampedWrite } from './sort-values.js'
import { coveredFields, sameCovered, type Covered } from './covered-fields.js'

/**
 * Records as JSON text (a page of whole records is answered without re-encoding them), each under its
 * collection's prefix then its `_id` (see `recordKey`).
 */
type RecordsDb = Database<string, string>

/** Collection ids in base 36, 7 characters (78 billion ids): a fixed width, so prefixes sort as the ids do. */
const PREFIX_LENGTH = 7

/**
 * A collection's records sort from `recordPrefix(id)` to `recordPrefix(id + 1)`. A string key (not an array)
 * keeps a read by `_id` as cheap as it was with one database per collection.
 */
export function recordPrefix(collectionId: number): string {
  let prefix = prefixes.get(collectionId)
  if (prefix === undefined) {
    if (prefixes.size >= 4096) prefixes.clear()
    prefix = collectionId.toString(36).padStart(PREFIX_LENGTH, '0')
    prefixes.set(collectionId, prefix)
  }
  return prefix
}
const prefixes = new Map<number, string>()
export const recordKey = (collectionId: number, id: string): string => recordPrefix(collectionId) + id
export const idOfKey = (key: string): string => key.slice(PREFIX_LENGTH)
/**
 * Index entries under `[indexId, ...values, _id]` → the record's covered fields (`covered-fields.ts`; null in
 * entries written before them, and for a record with several entries in the index), or `[indexId, ...values]` →
 * `_id` in unique indexes. Every index shares this one database: lmdb's named databases are a fixed number of slots.
 */
type EntriesDb = Database<string | Covered | null, IndexKey>
type MetaKey = Array<string | number>

/** Who builds an index: the process and the engine in it (`true`: a build recorded before builders were). */
type Builder = { pid: number; engine: string } | true

/** An index as held: its definition, the id its entries are keyed by, and whether it is still being built. */
export interface LiveIndex extends StoredIndex {
  id: number
  /** Set while the build runs: writes keep the entries, queries do not use them. */
  building?: Builder
  /**
   * Set when a write gave a unique index being built a value another record holds: the write stands (the
   * constraint applies once the index is complete), and the build fails at its next chunk.
   */
  duplicate?: true
  /**
   * Whether a non-unique index's entries may be ranked on what they carry (`covered-fields.ts`): `kept` once
   * this version keeps them, `stale` when a write of older code (which leaves the values as they were) may
   * have come after (see `#reconcileCarried`), `refreshing` while `addIndex` writes them again (`kept` once done,
   * unless older code wrote meanwhile).
   */
  carries?: 'kept' | 'stale' | 'refreshing'
}

/** Engines open in this process, by the id their builds record. */
const liveEngines = new Set<string>()

/** Whether the process that started a build is gone (a crash, a kill): the build will never finish. */
function abandoned(builder: Builder): boolean {
  if (builder === true) return true
  if (builder.pid === process.pid) return !liveEngines.has(builder.engine)
  try {
    process.kill(builder.pid, 0)
    return false
  } catch (error) {
    // EPERM: a live process of another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

interface CollectionMeta {
  /** Keys the collection's records; a collection made again after a drop gets a new one. */
  id: number
  indexes: LiveIndex[]
}

/** Records under this size are stored as they are: LZ4 gains nothing on them. */
const COMPRESSION_THRESHOLD = 128
const DICTIONARY = 'compressionDictionary'
const UNCARRIED = 'uncarriedFields'
/** Records an index build reads per write transaction, and entries a sweep deletes per write transaction. */
const BUILD_CHUNK = 400
const SWEEP_CHUNK = 2000
/** The default query budget: record text one query may hold in memory (MongoDB's in-memory sort allows 100 MB). */
const DEFAULT_QUERY_BUDGET = 32 * 2 ** 20
/**
 * Range candidates with their sort values the store keeps (`SortValueCache`): enough for a few hundred index
 * prefixes of a thousand records each, a small part of the memory a store of a million records may use.
 */
const SORT_VALUE_CAPACITY = 500_000
const newStamp = (): number => Math.floor(Math.random() * 2 ** 52)

// Meta keys. Ids of collections and indexes come from one sequence, so an id names one range in either database.
const SEQUENCE: MetaKey = ['seq']
const collectionKey = (name: string): MetaKey => ['c', name]
/**
 * `[count, bytes of text, stamp]` of a collection's records, kept in the write that changes them; the stamp is
 * new at each write (random, so no two writes of any process share one), for what caches a read (`sortValues`).
 */
const sizeKey = (id: number): MetaKey => ['n', id]
/**
 * The fourth part of a collection's size, written by every write of this version. Older code writes three parts
 * (or 1, when its entries carried fewer bytes and every field's value), so a size without it tells that the last
 * write may have been theirs (`#reconcileCarried`).
 */
const CARRIED = 2
/** The fifth part counts the collection's writes journaled (older code leaves it out, breaking the journal). */
type SizeMeta = [count: number, bytes: number, stamp?: number, carried?: number, journaled?: number]
/**
 * The last writes of each collection, for the processes sharing the store: the n-th write's slot
 * (`n % JOURNAL_SLOTS`) holds its stamps, before and after, and the ids it changed, so a process whose kept sort
 * values (`sortValues`) are some writes behind brings those records up to date instead of dropping all it keeps.
 * A slot is overwritten 64 writes on; a reader checks each link of stamps, so a stale slot only ends the chain.
 */
const JOURNAL_SLOTS = 64
const journalKey = (id: number, slot: number): MetaKey => ['j', id, slot]
type JournalEntry = [before: number | null, after: number, ...ids: string[]]
/** A dropped collection's or index's id whose records and entries the sweep has not deleted yet. */
const GARBAGE = 'gc'

export interface EngineOptions {
  /**
   * Records are LZ4-compressed against this dictionary (the fields the caller's records repeat). Part of the
   * stored format: the first open of a store records it (or that it had none), and every later open uses what
   * was recorded, so processes sharing a data dir agree whichever of them opens it first.
   */
  compressionDictionary?: Buffer
  /**
   * Bytes of record text one query may hold in memory (an in-memory sort, a skip) or scan for a count no index
   * answers; beyond it the query is refused (`QueryTooLargeError`). Default 32 MiB.
   */
  queryMemoryBudget?: number
  /**
   * Bytes of the store's file read ahead into the page cache once it is open (`prewarm`), so that the first
   * requests after a start do not wait on the disk. Default 0: none.
   */
  prewarmBytes?: number
  /**
   * Top-level fields no query ranks on (ids, hashes): index entries name them without their values, leaving the
   * room to the fields queries sort by (`covered-fields.ts`). Part of the stored format, as the dictionary: the
   * first open of a store records them, and every later open uses what was recorded.
   */
  uncarriedFields?: readonly string[]
}

/** Whether a record's entries show arrays the definition does not know of yet. */
function revealsArrays(stored: StoredIndex, entries: IndexEntries): boolean {
  return (
    (entries.opaque && !stored.opaque) ||
    entries.arrayPaths.some((path) => !stored.multikey || !stored.multikeyPaths?.includes(path))
  )
}

/** Records what a record's entries revealed about the index; true when the definition must be persisted. */
function noteArrays(stored: StoredIndex, entries: IndexEntries): boolean {
  let changed = false
  for (const path of entries.arrayPaths) {
    stored.multikeyPaths ??= []
    if (!stored.multikeyPaths.includes(path)) {
      stored.multikeyPaths.push(path)
      changed = true
    }
  }
  if (entries.arrayPaths.length > 0 && !stored.multikey) {
    stored.multikey = true
    changed = true
  }
  if (entries.opaque && !stored.opaque) {
    stored.opaque = true
    changed = true
  }
  return changed
}

/** Runs one chunk of long work (a build, a sweep) and reports its length to the long-work gate. */
function timed<R>(work: () => R): R {
  const started = performance.now()
  try {
    return work()
  } finally {
    spent(performance.now() - started)
  }
}

/**
 * What a non-unique index's entries of a record carry: its covered fields when it has one entry; null when an
 * array gave it several, so that a record with long arrays does not multiply the bytes (the reader falls back).
 */
function entryValue(entries: IndexEntries, covered: Covered | null): Covered | null {
  return entries.keys.length === 1 ? covered : null
}

/** The index's entry for `values`: unique indexes key the values alone, the others end the key with `_id`. */
function entryKey(index: LiveIndex, values: IndexKey, id: string): IndexKey {
  return keyedByValues(index) ? [index.id, ...values] : [index.id, ...values, id]
}

/**
 * The lmdb environment behind the embedded adapter, in a fixed set of databases whatever the collections and
 * indexes: `records` (every collection's records, keyed by collection id), `entries` (every index's entries,
 * keyed by index id) and `meta` (per collection: its id and index definitions, its record count; the id
 * sequence; the ids a sweep must still clear). Definitions are re-read on every operation, so processes sharing
 * the data dir see each other's indexes. Concurrent writes share one durable commit (see `write`).
 */
export class Engine {
  readonly stats = { reads: 0 }
  readonly sortValues = new SortValueCache(SORT_VALUE_CAPACITY, {
    since: (collectionId, from, to) => this.#journaledSince(collectionId, from, to),
    record: (collectionId, id) => {
      const json = this.#records.get(recordKey(collectionId, id))
      return json === undefined ? undefined : (JSON.parse(json) as StoredRecord)
    },
  })
  readonly queryBudget: number
  readonly #path: string
  readonly #env: RootDatabase
  readonly #meta: Database<unknown, MetaKey>
  readonly #records: RecordsDb
  readonly #entries: EntriesDb
  readonly #metaCache = new Map<string, { bytes: Buffer; meta: CollectionMeta; fresh: boolean }>()
  #staleTimer: NodeJS.Timeout | undefined
  /** Collections whose meta the writes in progress changed: their cached copies go once those commit. */
  readonly #changedMeta = new Set<string>()
  /** Builds running in this process, by index id: a second `ensureIndex` of one index waits for the first. */
  readonly #builds = new Map<number, Promise<void>>()
  /** Recorded on the builds this engine starts, so that the next open tells a build in progress from a dead one. */
  readonly #builder = { pid: process.pid, engine: randomUUID() }
  #sweeping: Promise<void> | undefined
  /** Set once `close` starts: new operations are refused, writes already issued finish first. */
  #closing: Promise<void> | undefined
  /** True while a write's `work` runs (in lmdb's write transaction), which may still read while closing. */
  #inWork = false
  readonly #pendingWrites = new Set<Promise<unknown>>()
  readonly #stopPrewarm = new AbortController()
  readonly #uncarried: ReadonlySet<string>
  /** The read ahead of the store's file, when asked for; `close` stops it. Resolves with the bytes read. */
  readonly #prewarmed: Promise<number>

  constructor(path: string, options: EngineOptions = {}) {
    this.queryBudget = options.queryMemoryBudget ?? DEFAULT_QUERY_BUDGET
    this.#path = path
    // `noReadAhead` (MDB_NORDAHEAD, MADV_RANDOM on the map): a read faults in its own page, not the 128 KiB around
    // it. On a large store readahead fills memory with pages no read wanted, and under a memory limit evicts the
    // pages reads do want: random reads by `_id` need only their own page.
    // lmdb-js reads `noReadAhead` (open.js) but its types leave it out. `permissionsMode` is the mode its native
    // open gives data.mdb and lock.mdb when it creates them (env.cpp; 0664 by default), also left out.
    const lmdbOptions: RootDatabaseOptionsWithPath & { noReadAhead: boolean; permissionsMode: number } = {
      path,
      maxDbs: 8,
      mapSize: 2 ** 34,
      noReadAhead: true,
      permissionsMode: PRIVATE_FILE_MODE,
    }
    guardCommitFailures()
    this.#env = open(lmdbOptions)
    this.#meta = this.#env.openDB({ name: 'meta', keyEncoding: 'ordered-binary' })
    const settings = this.#env.openDB<Buffer, string>({ name: 'settings', encoding: 'binary' })
    // In one write transaction, so processes opening a new store together agree on one dictionary. An empty
    // one records that the store has none. The uncarried fields likewise: an update rewrites an entry only when
    // what it carries changed, which holds only if every writer makes entries alike.
    const recorded = (key: string, given: Buffer): Buffer => {
      const found = settings.get(key)
      if (found !== undefined) return found
      settings.putSync(key, given)
      return given
    }
    const [dictionary, uncarried] = this.#env.transactionSync(() => [
      recorded(DICTIONARY, options.compressionDictionary ?? Buffer.alloc(0)),
      recorded(UNCARRIED, Buffer.from(JSON.stringify(options.uncarriedFields ?? []))),
    ])
    this.#uncarried = new Set(JSON.parse(uncarried.toString()) as string[])
    this.#records = this.#env.openDB<string, string>({
      name: 'records',
      keyEncoding: 'ordered-binary',
      encoding: 'string',
      compression:
        dictionary.length > 0 ? { threshold: COMPRESSION_THRESHOLD, dictionary } : { threshold: COMPRESSION_THRESHOLD },
    })
    this.#entries = this.#env.openDB<string | Covered | null, IndexKey>({
      name: 'entries',
      keyEncoding: 'ordered-binary',
    })
    liveEngines.add(this.#builder.engine)
    this.#dropAbandonedBuilds()
    // A drop interrupted by a restart left its ids in meta: this open's sweep finishes it.
    if (this.#meta.getKeysCount({ start: [GARBAGE], end: [GARBAGE, Infinity] }) > 0) this.sweep()
    // At most a quarter of the memory the process may have: the pages warmed must not evict the ones in use.
    const prewarmBytes = Math.min(
      options.prewarmBytes ?? 0,
      Math.floor((process.constrainedMemory?.() || totalmem()) / 4),
    )
    this.#prewarmed =
      prewarmBytes > 0 ? prewarm(join(path, 'data.mdb'), prewarmBytes, this.#stopPrewarm.signal) : Promise.resolve(0)
  }

  /**
   * A build whose process died left its index half-made: never used by queries, but its entries (and a unique
   * constraint) would be kept by every write with no build to finish it. It is dropped; the caller that wanted the
   * index declares it again (the documents service's definitions, `quire upgrade`).
   */
  #dropAbandonedBuilds(): void {
    this.#env.transactionSync(() => {
      for (const { key, value } of this.#meta.getRange({ start: ['c'], end: ['d'] })) {
        if ((key as MetaKey)[0] !== 'c') continue
        const meta = value as CollectionMeta
        const dead = meta.indexes.filter((index) => index.building && abandoned(index.building))
        if (dead.length === 0) continue
        const name = (key as MetaKey)[1] as string
        this.#putMeta(name, { ...meta, indexes: meta.indexes.filter((index) => !dead.includes(index)) })
        for (const index of dead) this.#meta.putSync([GARBAGE, index.id], true)
      }
    })
  }

  /**
   * Refuses an operation once `close` started. lmdb's `close` aborts its shared read transaction at once but
   * waits for the writes in progress; a read meanwhile would renew the aborted transaction, and lmdb's reset
   * timer then throws outside any promise (an uncaught exception that kills the process).
   */
  assertOpen(): void {
    if (this.#closing && !this.#inWork) throw new StoreUnavailableError('the embedded store is closed')
  }

  /** Every collection's records; a collection's range is `recordPrefix(id)` to `recordPrefix(id + 1)`. */
  get records(): RecordsDb {
    this.assertOpen()
    return this.#records
  }

  get entries(): EntriesDb {
    this.assertOpen()
    return this.#entries
  }

  /**
   * The collection's id and index definitions, or undefined while it does not exist. Outside a write, a decoded
   * copy serves until the next timer turn, as lmdb's shared read snapshot does (so a read by `_id` is one lmdb
   * read); after that the stored bytes are compared again, and decoded only when they changed. Other processes'
   * changes show within that turn; this process's own writes drop the copy at once. Treat it as read-only.
   */
  collection(name: string): CollectionMeta | undefined {
    this.assertOpen()
    const cached = this.#metaCache.get(name)
    if (cached?.fresh && !this.#inWork) return cached.meta
    const key = collectionKey(name)
    // `getBinaryFast` reads into a shared buffer (no allocation); copied only when the definitions changed.
    const fast = this.#meta.getBinaryFast(key)
    if (!fast) {
      if (!this.#inWork) this.#metaCache.delete(name)
      return undefined
    }
    // The shared buffer's `length` is the value's size (its `byteLength` is the whole buffer): view exactly that.
    const view = new Uint8Array(fast.buffer, fast.byteOffset, fast.length)
    let entry = cached
    if (!entry || !entry.bytes.equals(view)) {
      // Kept by its bytes, whatever the transaction: a write's own meta, not committed yet, is never taken as
      // fresh, and reads compare the bytes again. So a stream of writes to a collection nobody reads decodes
      // its meta (and compiles its partial filters) once, not once per write: with the entries of a new record
      // written without diffing (`putRecord`), concurrent inserts cost about a quarter less CPU.
      entry = { bytes: Buffer.from(view), meta: this.#meta.get(key) as CollectionMeta, fresh: false }
      this.#metaCache.set(name, entry)
    }
    if (this.#inWork) return entry.meta
    entry.fresh = true
    this.#freshUntilNextTurn()
    return entry.meta
  }

  #freshUntilNextTurn(): void {
    if (this.#staleTimer) return
    this.#staleTimer = setTimeout(() => this.#stale(), 0)
    this.#staleTimer.unref()
  }

  #stale(): void {
    this.#staleTimer = undefined
    for (const entry of this.#metaCache.values()) entry.fresh = false
  }

  /** Stores a collection's meta (inside a write); this process's reads see it once the write commits. */
  #putMeta(name: string, meta: CollectionMeta | undefined): void {
    if (meta) this.#meta.putSync(collectionKey(name), meta)
    else this.#meta.removeSync(collectionKey(name))
    this.#changedMeta.add(name)
  }

  /** The writes that took the collection from stamp `from` to `to`, its stamp now, as its journal tells them. */
  #journaledSince(collectionId: number, from: number | undefined, to: number | undefined): StampedWrite[] | undefined {
    const size = this.#meta.get(sizeKey(collectionId)) as SizeMeta | undefined
    const journaled = size?.[4]
    if (journaled === undefined || size?.[2] !== to) return undefined
    const writes: StampedWrite[] = []
    let next = to
    for (let n = journaled - 1; n >= Math.max(0, journaled - JOURNAL_SLOTS); n--) {
      const entry = this.#meta.get(journalKey(collectionId, n % JOURNAL_SLOTS)) as JournalEntry | undefined
      if (!entry || entry[1] !== next) return undefined
      const [before, , ...ids] = entry
      writes.push({ before: before ?? undefined, ids })
      if (before === (from ?? null)) return writes.reverse()
      next = before ?? undefined
    }
    return undefined
  }

  /** The record as stored, or undefined. */
  row(name: string, id: string): Row | undefined {
    const meta = this.collection(name)
    if (!meta) return undefined
    const json = this.#records.get(recordKey(meta.id, id))
    return json === undefined ? undefined : new Row(id, json)
  }

  /**
   * The number of records, the bytes of their text, the stamp of the last write (one read), and whether every
   * write since this version last checked the indexes' carried values was this version's (`#reconcileCarried`).
   */
  size(collectionId: number): { count: number; bytes: number; stamp: number | undefined; carried: boolean } {
    const [count, bytes, stamp, carried] = (this.#meta.get(sizeKey(collectionId)) as SizeMeta | undefined) ?? [
      0,
      0,
      undefined,
    ]
    return { count, bytes, stamp, carried: carried === CARRIED }
  }

  /**
   * Before this version writes a collection's records or entries (inside the write): when its size lacks the
   * `CARRIED` mark, older code may have written since, updating records without their entries' values, so the
   * indexes whose entries this version kept become `stale` (ranked by reading the records, as before them) and
   * those it never kept (every value `null`) become `kept`; then the mark is written. A data directory upgraded
   * from older code thus has its indexes kept at the first write, while running older code on it again, even in
   * one process among several, can never leave a stale value ranked on.
   */
  #reconcileCarried(
    name: string,
    meta: CollectionMeta,
    size = this.#meta.get(sizeKey(meta.id)) as SizeMeta | undefined,
  ): CollectionMeta {
    if (size?.[3] === CARRIED) return meta
    if (size) this.#meta.putSync(sizeKey(meta.id), [size[0], size[1], size[2], CARRIED] satisfies SizeMeta)
    const carries = (index: LiveIndex): LiveIndex['carries'] =>
      keyedByValues(index) ? undefined : size && index.carries ? 'stale' : (index.carries ?? 'kept')
    if (meta.indexes.every((index) => index.carries === carries(index))) return meta
    const reconciled = {
      ...meta,
      indexes: meta.indexes.map((index) => (keyedByValues(index) ? index : { ...index, carries: carries(index) })),
    }
    this.#putMeta(name, reconciled)
    return reconciled
  }

  /**
   * Runs `work` atomically and durably, grouped with the other writes issued meanwhile (group commit): lmdb
   * queues the callback into its next batch transaction, where `work` runs in a child transaction of its own,
   * so a throw rolls back `work` alone and the rest of the batch still commits. The promise settles once the
   * batch is committed and flushed to disk. A batch that cannot be committed rejects every write in it, with
   * `StoreFullError` when the disk is full; nothing of it is kept, and later writes go on once there is room.
   */
  async write<R>(work: () => R): Promise<R> {
    this.assertOpen()
    // A write is costly work too (a bulk call's commit puts hundreds of records and their entries in one go):
    // it takes its account's turn, and what it took is charged to that account (see long-work.ts).
    const { turnTaken, charge } = writeTurn()
    if (turnTaken) {
      await turnTaken
      this.assertOpen()
    }
    const pending = this.#write(() => {
      const started = performance.now()
      try {
        return work()
      } finally {
        charge(performance.now() - started)
      }
    })
    this.#pendingWrites.add(pending)
    try {
      return await pending
    } finally {
      this.#pendingWrites.delete(pending)
    }
  }

  async #write<R>(work: () => R): Promise<R> {
    let outcome: { ok: true; value: R } | { ok: false; error: unknown } | undefined
    let failedCommit: { error: unknown } | undefined
    try {
      await this.#env.transaction(() => {
        try {
          // Inside a write transaction, `transactionSync` runs `work` as an abortable child transaction.
          this.#inWork = true
          outcome = { ok: true, value: this.#env.transactionSync(work) }
        } catch (error) {
          outcome = { ok: false, error }
        } finally {
          this.#inWork = false
        }
      })
    } catch (error) {
      failedCommit = { error }
    }
    // A read while the batch ran cached the meta as it was before: committed now (or not), what is stored shows.
    for (const name of this.#changedMeta) this.#metaCache.delete(name)
    this.#changedMeta.clear()
    // The batch's commit failed (a full disk): lmdb aborted it whole, and the environment takes the next one.
    if (failedCommit) throw await writeFailure(failedCommit.error, this.#path)
    // With lmdb's (default) overlapping sync, the transaction promise resolves once the batch is committed
    // and visible; `flushed` resolves once it is on disk.
    await this.#env.flushed
    const settled = outcome as typeof outcome | undefined
    if (!settled) throw new RecordsError('the write did not run')
    if (!settled.ok) throw await writeFailure(settled.error, this.#path)
    return settled.value
  }

  /** The collection's meta, made (with a new id) when missing. Call inside `write`. */
  #create(name: string): CollectionMeta {
    const existing = this.collection(name)
    if (existing) return existing
    const meta: CollectionMeta = { id: this.#nextId(), indexes: [] }
    this.#putMeta(name, meta)
    return meta
  }

  #nextId(): number {
    const id = ((this.#meta.get(SEQUENCE) as number | undefined) ?? 0) + 1
    this.#meta.putSync(SEQUENCE, id)
    return id
  }

  /**
   * Replaces `before` by `after` (either may be absent), keeping every index in step, those being built
   * included, and the collection's size. Call inside `write`.
   */
  putRecord(name: string, before: Row | undefined, after: StoredRecord | undefined): void {
    const found = after ? this.#create(name) : this.collection(name)
    if (!found) return
    // Read once: the check of the carried values and the new size both start from it.
    const stored = this.#meta.get(sizeKey(found.id)) as SizeMeta | undefined
    const meta = this.#reconcileCarried(name, found, stored)
    let updated: LiveIndex[] | undefined
    // Made once for every index; an update compares them to rewrite entries whose indexed values did not change.
    const covered =
      after && meta.indexes.some((index) => !keyedByValues(index)) ? coveredFields(after, this.#uncarried) : null
    let coveredBefore: Covered | null | undefined
    for (const [position, index] of meta.indexes.entries()) {
      const { spec } = index
      if (!before) {
        // A new record (most writes): its entries, with no old ones to compare them to.
        const newEntries = after && isIndexed(spec, after) ? indexEntries(spec, after) : undefined
        if (!after || !newEntries) continue
        const value = entryValue(newEntries, covered)
        for (const key of newEntries.keys) {
          if (!this.#putEntry(index, key, after._id, value)) {
            const failed = (updated ??= structuredClone(meta.indexes))[position] as LiveIndex
            failed.duplicate = true
          }
        }
        if (revealsArrays(index, newEntries)) {
          updated ??= structuredClone(meta.indexes)
          noteArrays(updated[position] as LiveIndex, newEntries)
        }
        continue
      }
      const oldEntries = before && isIndexed(spec, before.record) ? indexEntries(spec, before.record) : undefined
      const newEntries = after && isIndexed(spec, after) ? indexEntries(spec, after) : undefined
      const oldKeys = new Map(oldEntries?.keys.map((key) => [JSON.stringify(key), key]))
      const newKeys = new Map(newEntries?.keys.map((key) => [JSON.stringify(key), key]))
      if (before) {
        for (const [text, key] of oldKeys) {
          if (!after || before.id !== after._id || !newKeys.has(text)) {
            this.#entries.removeSync(entryKey(index, key, before.id))
          }
        }
      }
      if (!after || !newEntries) continue
      const value = entryValue(newEntries, covered)
      // Entries the update keeps are rewritten when what they carry changed (the same transaction, so a reader
      // never ranks on a stale value): the update of a carried field touches every non-unique index.
      let rewrite = false
      if (!keyedByValues(index) && oldEntries && before.id === after._id) {
        coveredBefore ??= coveredFields(before.record, this.#uncarried)
        rewrite = !sameCovered(entryValue(oldEntries, coveredBefore), value)
      }
      for (const [text, key] of newKeys) {
        if (before.id === after._id && oldKeys.has(text)) {
          if (rewrite) this.#entries.putSync(entryKey(index, key, after._id), value)
          continue
        }
        if (!this.#putEntry(index, key, after._id, value)) {
          const failed = (updated ??= structuredClone(meta.indexes))[position] as LiveIndex
          failed.duplicate = true
        }
      }
      if (revealsArrays(index, newEntries)) {
        updated ??= structuredClone(meta.indexes)
        noteArrays(updated[position] as LiveIndex, newEntries)
      }
    }
    if (updated) this.#putMeta(name, { ...meta, indexes: updated })
    const [count, bytes, previous, , journaled = 0] = stored ?? [0, 0, undefined]
    const size = { count, bytes, stamp: previous }
    if (before) {
      size.count--
      size.bytes -= before.json.length
    }
    if (after) {
      const json = JSON.stringify(after)
      this.#records.putSync(recordKey(meta.id, after._id), json)
      size.count++
      size.bytes += json.length
    } else if (before) {
      this.#records.removeSync(recordKey(meta.id, before.id))
    }
    const stamp = newStamp()
    const records = new Map<string, RecordChange>()
    if (before) records.set(before.id, { before: before.record, after: undefined })
    if (after) records.set(after._id, { before: before?.id === after._id ? before.record : undefined, after })
    // Before this write's journal: what is kept may first follow other processes' writes up to `size.stamp`.
    this.sortValues.changed(meta.id, size.stamp, stamp, records)
    const entry: JournalEntry = [size.stamp ?? null, stamp, ...records.keys()]
    this.#meta.putSync(journalKey(meta.id, journaled % JOURNAL_SLOTS), entry)
    this.#meta.putSync(sizeKey(meta.id), [size.count, size.bytes, stamp, CARRIED, journaled + 1] satisfies SizeMeta)
  }

  /**
   * Adds the record's entry for `values`; in a unique index, refuses values another record holds. A write into
   * a unique index still being built is not refused: false tells the caller to mark the build failed.
   */
  #putEntry(index: LiveIndex, values: IndexKey, id: string, covered: Covered | null, writing = true): boolean {
    const unique = keyedByValues(index)
    if (unique) {
      const owner = this.#entries.get([index.id, ...values])
      if (owner !== undefined && owner !== id) {
        if (writing && index.building) return false
        throw new DuplicateKeyError(
          index.spec.name,
          values.filter((_, i) => i % 2 === 1),
        )
      }
    }
    this.#entries.putSync(entryKey(index, values, id), unique ? id : covered)
    return true
  }

  /**
   * Adds the index and resolves once it is built (at once for an index whose entries are written again in the
   * background: `stale`, see `carries`). The definition is stored first (marked building: every write
   * keeps its entries from then on, queries ignore it), then the records present are added in chunks of
   * `BUILD_CHUNK`, one write transaction each, the event loop free between them. A record the index refuses
   * (a duplicate, parallel arrays) drops the index again and rejects.
   */
  async addIndex(name: string, spec: IndexSpec): Promise<void> {
    const building = await this.write(() => {
      const meta = this.#reconcileCarried(name, this.#create(name))
      const existing = meta.indexes.find((index) => index.spec.name === spec.name)
      if (existing) {
        if (!sameSpec(existing.spec, spec)) {
          throw new RecordsError(`index ${spec.name} already exists with another definition`)
        }
        if (existing.building) return { id: existing.id, work: 'build' as const }
        if (existing.carries !== 'stale' && existing.carries !== 'refreshing') return undefined
        // Its keys are right, what they carry may not be: written again from the records.
        this.#putMeta(name, {
          ...meta,
          indexes: meta.indexes.map((index) => (index === existing ? { ...index, carries: 'refreshing' } : index)),
        })
        return { id: existing.id, work: 'refresh' as const }
      }
      const index: LiveIndex = {
        spec,
        multikey: false,
        multikeyPaths: [],
        id: this.#nextId(),
        building: this.#builder,
        // Its entries, this build's and every later write's, carry this version's values.
        ...(spec.unique === true ? {} : { carries: 'kept' as const }),
      }
      this.#putMeta(name, { ...meta, indexes: [...meta.indexes, index] })
      return { id: index.id, work: 'build' as const }
    })
    if (building === undefined) return
    const { id, work } = building
    let build = this.#builds.get(id)
    if (!build) {
      // A refresh cut short (closing, a failure) leaves the index `refreshing`: the next `addIndex` takes it up.
      build = (work === 'build' ? this.#build(name, id) : this.#refresh(name, id).catch(() => undefined)).finally(() =>
        this.#builds.delete(id),
      )
      this.#builds.set(id, build)
    }
    // A refreshing index answers meanwhile (ranked off its records): a start does not wait for it.
    if (work === 'build') await build
  }

  /** Resolves once the builds and refreshes running now are done, whatever their outcome. */
  async indexWork(): Promise<void> {
    await Promise.allSettled([...this.#builds.values()])
  }

  async #build(name: string, indexId: number): Promise<void> {
    let after: string | undefined
    for (;;) {
      let step: { done: boolean; last?: string }
      try {
        step = await this.write(() => timed(() => this.#buildChunk(name, indexId, after)))
      } catch (error) {
        // Nothing of the index is left for readers: its definition goes now, its entries with the sweep.
        if (!(error instanceof StoreUnavailableError)) await this.#dropIndex(name, indexId)
        throw error
      }
      if (step.done) return
      after = step.last
      await turn()
    }
  }

  /** A build's or a refresh's next records: up to `BUILD_CHUNK` of the collection's after `after`, in `_id` order. */
  *#chunkAfter(collectionId: number, after: string | undefined): Generator<{ id: string; record: StoredRecord }> {
    let read = 0
    for (const { key, value } of this.#records.getRange({
      start: recordKey(collectionId, after ?? ''),
      end: recordPrefix(collectionId + 1),
    })) {
      const id = idOfKey(key)
      if (id === after) continue
      yield { id, record: JSON.parse(value) as StoredRecord }
      if (++read === BUILD_CHUNK) return
    }
  }

  /** Indexes the records after `after` (in `_id` order), up to `BUILD_CHUNK`; done when none are left. */
  #buildChunk(name: string, indexId: number, after: string | undefined): { done: boolean; last?: string } {
    const found = this.collection(name)
    const meta = found && this.#reconcileCarried(name, found)
    const position = meta?.indexes.findIndex((index) => index.id === indexId) ?? -1
    // Dropped meanwhile (the index, or its collection): nothing left to build.
    if (!meta || position < 0) return { done: true }
    const indexes = structuredClone(meta.indexes)
    const index = indexes[position] as LiveIndex
    if (index.duplicate) throw new DuplicateKeyError(index.spec.name, [])
    let read = 0
    let last: string | undefined
    let changed = false
    for (const { id, record } of this.#chunkAfter(meta.id, after)) {
      if (isIndexed(index.spec, record)) {
        const entries = indexEntries(index.spec, record)
        const value = keyedByValues(index) ? null : entryValue(entries, coveredFields(record, this.#uncarried))
        for (const values of entries.keys) this.#putEntry(index, values, id, value, false)
        changed = noteArrays(index, entries) || changed
      }
      last = id
      read++
    }
    const done = read < BUILD_CHUNK
    if (done) delete index.building
    if (done || changed) this.#putMeta(name, { ...meta, indexes })
    return { done, last }
  }

  /**
   * Writes what a `refreshing` index's entries carry again, chunk by chunk as a build. A failure leaves the index
   * as it was for readers (not `kept`: ranked off the records); the next `addIndex` takes it up again.
   */
  async #refresh(name: string, indexId: number): Promise<void> {
    let after: string | undefined
    while (!this.#closing) {
      const step = await this.write(() => timed(() => this.#refreshChunk(name, indexId, after)))
      if (step.done) return
      after = step.last
      await turn()
    }
  }

  /**
   * Writes again what the entries of the records after `after` carry, up to `BUILD_CHUNK`; the last chunk makes the
   * index `kept`. Writes of this version meanwhile keep the entries they touch, and this reads each record as it
   * is now, so every entry is right once it is done, unless older code wrote meanwhile: then the index is `stale`
   * again (`#reconcileCarried`) and stays so.
   */
  #refreshChunk(name: string, indexId: number, after: string | undefined): { done: boolean; last?: string } {
    const found = this.collection(name)
    const meta = found && this.#reconcileCarried(name, found)
    const index = meta?.indexes.find((candidate) => candidate.id === indexId)
    if (!meta || index?.carries !== 'refreshing') return { done: true }
    let read = 0
    let last: string | undefined
    for (const { id, record } of this.#chunkAfter(meta.id, after)) {
      if (isIndexed(index.spec, record)) {
        const entries = indexEntries(index.spec, record)
        const carried = entryValue(entries, coveredFields(record, this.#uncarried))
        for (const values of entries.keys) this.#entries.putSync(entryKey(index, values, id), carried)
      }
      last = id
      read++
    }
    const done = read < BUILD_CHUNK
    if (done) {
      this.#putMeta(name, {
        ...meta,
        indexes: meta.indexes.map((candidate) => (candidate === index ? { ...index, carries: 'kept' } : candidate)),
      })
    }
    return { done, last }
  }

  /** Every index with its state. */
  describeIndexes(name: string): IndexInfo[] {
    return (this.collection(name)?.indexes ?? []).map((index) => ({
      ...structuredClone(index.spec),
      state: index.building ? 'building' : 'ready',
    }))
  }

  /** Removes the index at once for readers and writers; its entries go with the sweep. */
  async removeIndex(name: string, indexName: string): Promise<void> {
    const id = this.collection(name)?.indexes.find((index) => index.spec.name === indexName)?.id
    if (id !== undefined) await this.#dropIndex(name, id)
  }

  async #dropIndex(name: string, indexId: number): Promise<void> {
    await this.write(() => {
      const meta = this.collection(name)
      if (!meta?.indexes.some((index) => index.id === indexId)) return
      this.#putMeta(name, { ...meta, indexes: meta.indexes.filter((index) => index.id !== indexId) })
      this.#meta.putSync([GARBAGE, indexId], true)
    })
    this.sweep()
  }

  /** Removes the collection at once (a collection made again under its name gets a new id); the sweep clears it. */
  async removeCollection(name: string): Promise<void> {
    await this.write(() => {
      const meta = this.collection(name)
      if (!meta) return
      this.#putMeta(name, undefined)
      this.#meta.removeSync(sizeKey(meta.id))
      for (let slot = 0; slot < JOURNAL_SLOTS; slot++) this.#meta.removeSync(journalKey(meta.id, slot))
      this.sortValues.drop(meta.id)
      for (const id of [meta.id, ...meta.indexes.map((index) => index.id)]) this.#meta.putSync([GARBAGE, id], true)
    })
    this.sweep()
  }

  /**
   * Deletes the records and entries of dropped ids in the background, `SWEEP_CHUNK` keys per write transaction,
   * the event loop free between them; resolves once none are left. An id leaves meta only once its ranges are
   * empty, so a sweep cut short by a restart is finished by the next open's.
   */
  sweep(): Promise<void> {
    // A sweep stopped by closing (or failing) leaves its ids in meta: the next sweep, or the next open's, resumes.
    this.#sweeping ??= this.#sweep()
      .catch(() => undefined)
      .finally(() => {
        this.#sweeping = undefined
      })
    return this.#sweeping
  }

  async #sweep(): Promise<void> {
    for (;;) {
      if (this.#closing) return
      const more = await this.write(() =>
        timed(() => {
          let removed = 0
          let visited = 0
          for (const garbage of this.#meta.getKeys({ start: [GARBAGE], end: [GARBAGE, Infinity] })) {
            if (removed >= SWEEP_CHUNK || ++visited > SWEEP_CHUNK / 4) return true
            const id = garbage[1] as number
            const ranges: Array<[Database<unknown, Key>, Key, Key]> = [
              [this.#records, recordPrefix(id), recordPrefix(id + 1)],
              [this.#entries, [id], [id + 1]],
            ]
            for (const [db, start, end] of ranges) {
              for (const key of db.getKeys({ start, end, limit: SWEEP_CHUNK - removed + 1 })) {
                if (removed === SWEEP_CHUNK) return true
                db.removeSync(key)
                removed++
              }
            }
            this.#meta.removeSync(garbage)
          }
          return false
        }),
      )
      if (!more) return
      await turn()
    }
  }

  ping(): void {
    this.assertOpen()
    this.#meta.get(SEQUENCE)
  }

  /** Refuses new operations at once, lets the writes already issued finish, then closes lmdb. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#stopPrewarm.abort()
      await this.#prewarmed
      await Promise.allSettled([...this.#pendingWrites])
      await this.#sweeping
      await this.#env.close()
      liveEngines.delete(this.#builder.engine)
    })()
    return this.#closing
  }
}
