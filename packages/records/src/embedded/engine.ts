import { open, type Database, type Key, type RootDatabase } from 'lmdb'
import { DuplicateKeyError, RecordsError, StoreUnavailableError } from '../errors.js'
import type { IndexSpec, StoredRecord } from '../port.js'
import {
  indexEntries,
  isIndexed,
  keyedByValues,
  sameSpec,
  type IndexEntries,
  type IndexKey,
  type StoredIndex,
} from './index-keys.js'

/** Records as JSON text: a page of whole records is answered without decoding and re-encoding them. */
type RecordsDb = Database<string, string>
/** Entry values: the record's `_id` in unique indexes, nothing in the others (the `_id` ends the key). */
type IndexDb = Database<string | null, IndexKey>

/** Records under this size are stored as they are: LZ4 gains nothing on them. */
const COMPRESSION_THRESHOLD = 128
/** Where the store keeps its settings (the compression dictionary), beside the index definitions. */
const SETTINGS = '__settings'
const DICTIONARY = 'compressionDictionary'

export interface EngineOptions {
  /**
   * Records are LZ4-compressed against this dictionary (the fields the caller's records repeat). Part of the
   * stored format: the first open of a store records it, and every later open uses the recorded one.
   */
  compressionDictionary?: Buffer
}

/** `clearSync` opens its own transaction, which cannot nest in ours. */
function clear<K extends Key>(db: Database<unknown, K>): void {
  for (const key of db.getKeys()) db.removeSync(key)
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

/** Where the record's entry for `values` is: unique indexes key the values alone, the others end the key with `_id`. */
function entryKey(stored: StoredIndex, values: IndexKey, id: string): IndexKey {
  return keyedByValues(stored) ? values : [...values, id]
}

/**
 * The lmdb environment behind the embedded adapter: one sub-database of records (JSON text) per collection,
 * one per index, and a meta database holding index definitions (re-read on every operation, so processes sharing
 * the data dir see each other's indexes). Concurrent writes share one durable commit (see `write`).
 */
export class Engine {
  readonly stats = { reads: 0 }
  readonly #env: RootDatabase
  readonly #meta: Database<StoredIndex[], string>
  /** Opened databases by collection: looked up by the collection's name, without building a database name per call. */
  readonly #dbs = new Map<string, { records: RecordsDb; indexes: Map<string, IndexDb> }>()
  readonly #indexCache = new Map<string, { bytes: Buffer; indexes: StoredIndex[] }>()
  /** Set once `close` starts: new operations are refused, writes already issued finish first. */
  #closing: Promise<void> | undefined
  /** True while a write's `work` runs (in lmdb's write transaction), which may still read while closing. */
  #inWork = false
  readonly #pendingWrites = new Set<Promise<unknown>>()

  readonly #compression: { threshold: number; dictionary?: Buffer }

  constructor(path: string, options: EngineOptions = {}) {
    this.#env = open({ path, maxDbs: 4096, mapSize: 2 ** 34 })
    this.#meta = this.#env.openDB({ name: '__meta', keyEncoding: 'ordered-binary' })
    const settings = this.#env.openDB<Buffer, string>({ name: SETTINGS, encoding: 'binary' })
    // In one write transaction, so processes opening a new store together agree on one dictionary.
    const dictionary = this.#env.transactionSync(() => {
      const recorded = settings.get(DICTIONARY)
      if (recorded !== undefined || !options.compressionDictionary) return recorded
      settings.putSync(DICTIONARY, options.compressionDictionary)
      return options.compressionDictionary
    })
    this.#compression = dictionary
      ? { threshold: COMPRESSION_THRESHOLD, dictionary }
      : { threshold: COMPRESSION_THRESHOLD }
  }

  /**
   * Refuses an operation once `close` started. lmdb's `close` aborts its shared read transaction at once but
   * waits for the writes in progress; a read meanwhile would renew the aborted transaction, and lmdb's reset
   * timer then throws outside any promise (an uncaught exception that kills the process).
   */
  #assertOpen(): void {
    if (this.#closing && !this.#inWork) throw new StoreUnavailableError('the embedded store is closed')
  }

  /** The collection's records, each its JSON text under its `_id`. */
  records(collection: string): RecordsDb {
    return this.#opened(collection).records
  }

  /** The record decoded, or undefined. */
  read(collection: string, id: string): StoredRecord | undefined {
    const json = this.records(collection).get(id)
    return json === undefined ? undefined : (JSON.parse(json) as StoredRecord)
  }

  /** The number of records, from the database's entry count (one read). */
  recordCount(collection: string): number {
    const records = this.records(collection)
    const { entryCount } = records.getStats() as { entryCount?: number }
    return entryCount ?? records.getKeysCount()
  }

  index(collection: string, name: string): IndexDb {
    const { indexes } = this.#opened(collection)
    let db = indexes.get(name)
    if (!db) {
      db = this.#env.openDB<string | null, IndexKey>({ name: `i/${collection}/${name}`, keyEncoding: 'ordered-binary' })
      indexes.set(name, db)
    }
    return db
  }

  #opened(collection: string): { records: RecordsDb; indexes: Map<string, IndexDb> } {
    this.#assertOpen()
    let dbs = this.#dbs.get(collection)
    if (!dbs) {
      const records = this.#env.openDB<string, string>({
        name: `json/${collection}`,
        keyEncoding: 'ordered-binary',
        encoding: 'string',
        compression: this.#compression,
      })
      dbs = { records, indexes: new Map() }
      this.#dbs.set(collection, dbs)
    }
    return dbs
  }

  /**
   * The collection's index definitions as stored now. Decoded definitions are reused while their stored bytes
   * are unchanged (read on every call, so other processes' changes show at once); treat them as read-only.
   */
  indexes(collection: string): StoredIndex[] {
    this.#assertOpen()
    // `getBinaryFast` reads into a shared buffer (no allocation); copied only when the definitions changed.
    const fast = this.#meta.getBinaryFast(collection)
    if (!fast) return []
    // The shared buffer's `length` is the value's size (its `byteLength` is the whole buffer): view exactly that.
    const view = new Uint8Array(fast.buffer, fast.byteOffset, fast.length)
    const cached = this.#indexCache.get(collection)
    if (cached && cached.bytes.equals(view)) return cached.indexes
    const bytes = Buffer.from(view)
    const indexes = this.#meta.get(collection) ?? []
    this.#indexCache.set(collection, { bytes, indexes })
    return indexes
  }

  /**
   * Runs `work` atomically and durably, grouped with the other writes issued meanwhile (group commit): lmdb
   * queues the callback into its next batch transaction, where `work` runs in a child transaction of its own,
   * so a throw rolls back `work` alone and the rest of the batch still commits. The promise settles once the
   * batch is committed and flushed to disk. The sub-databases of the collections it touches are opened first:
   * lmdb cannot iterate one first opened inside a write.
   */
  async write<R>(collections: string[], work: () => R): Promise<R> {
    this.#assertOpen()
    const pending = this.#write(collections, work)
    this.#pendingWrites.add(pending)
    try {
      return await pending
    } finally {
      this.#pendingWrites.delete(pending)
    }
  }

  async #write<R>(collections: string[], work: () => R): Promise<R> {
    for (const collection of collections) {
      this.records(collection)
      for (const { spec } of this.indexes(collection)) this.index(collection, spec.name)
    }
    let outcome: { ok: true; value: R } | { ok: false; error: unknown } | undefined
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
    // With lmdb's (default) overlapping sync, the transaction promise resolves once the batch is committed
    // and visible; `flushed` resolves once it is on disk.
    await this.#env.flushed
    const settled = outcome as typeof outcome | undefined
    if (!settled) throw new RecordsError('the write did not run')
    if (!settled.ok) throw settled.error
    return settled.value
  }

  /** Replaces `before` by `after` (either may be absent), keeping every index in step. Call inside `write`. */
  putRecord(collection: string, before: StoredRecord | undefined, after: StoredRecord | undefined): void {
    const indexes = this.indexes(collection)
    let updated: StoredIndex[] | undefined
    for (const [position, stored] of indexes.entries()) {
      const { spec } = stored
      const db = this.index(collection, spec.name)
      const oldEntries = before && isIndexed(spec, before) ? indexEntries(spec, before) : undefined
      const newEntries = after && isIndexed(spec, after) ? indexEntries(spec, after) : undefined
      const oldKeys = new Map(oldEntries?.keys.map((key) => [JSON.stringify(key), key]))
      const newKeys = new Map(newEntries?.keys.map((key) => [JSON.stringify(key), key]))
      if (before) {
        for (const [text, key] of oldKeys) {
          if (!after || before._id !== after._id || !newKeys.has(text)) db.removeSync(entryKey(stored, key, before._id))
        }
      }
      if (!after || !newEntries) continue
      for (const [text, key] of newKeys) {
        if (before && before._id === after._id && oldKeys.has(text)) continue
        this.#putEntry(db, stored, key, after._id)
      }
      if (revealsArrays(stored, newEntries)) {
        updated ??= structuredClone(indexes)
        noteArrays(updated[position] as StoredIndex, newEntries)
      }
    }
    if (updated) this.#meta.putSync(collection, updated)
    const records = this.records(collection)
    if (after) records.putSync(after._id, JSON.stringify(after))
    else if (before) records.removeSync(before._id)
  }

  /** Adds the record's entry for `values`; in a unique index, refuses values another record holds. */
  #putEntry(db: IndexDb, stored: StoredIndex, values: IndexKey, id: string): void {
    const unique = keyedByValues(stored)
    if (unique) {
      const owner = db.get(values)
      if (owner !== undefined && owner !== id) {
        throw new DuplicateKeyError(
          stored.spec.name,
          values.filter((_, i) => i % 2 === 1),
        )
      }
    }
    db.putSync(entryKey(stored, values, id), unique ? id : null)
  }

  /** Adds the index and builds it from the existing records. Call inside `write`. */
  addIndex(collection: string, spec: IndexSpec): void {
    const indexes = this.indexes(collection)
    const existing = indexes.find((stored) => stored.spec.name === spec.name)
    if (existing) {
      if (!sameSpec(existing.spec, spec)) {
        throw new RecordsError(`index ${spec.name} already exists with another definition`)
      }
      return
    }
    const stored: StoredIndex = { spec, multikey: false, multikeyPaths: [] }
    const db = this.index(collection, spec.name)
    clear(db)
    for (const { value } of this.records(collection).getRange()) {
      const record = JSON.parse(value) as StoredRecord
      if (!isIndexed(spec, record)) continue
      const entries = indexEntries(spec, record)
      for (const key of entries.keys) this.#putEntry(db, stored, key, record._id)
      noteArrays(stored, entries)
    }
    this.#meta.putSync(collection, [...indexes, stored])
  }

  /** Call inside `write`. */
  removeIndex(collection: string, name: string): void {
    const indexes = this.indexes(collection)
    if (!indexes.some((stored) => stored.spec.name === name)) return
    clear(this.index(collection, name))
    this.#meta.putSync(
      collection,
      indexes.filter((stored) => stored.spec.name !== name),
    )
  }

  /** Call inside `write`. */
  removeCollection(collection: string): void {
    for (const { spec } of this.indexes(collection)) clear(this.index(collection, spec.name))
    clear(this.records(collection))
    this.#meta.removeSync(collection)
  }

  ping(): void {
    this.#assertOpen()
    this.#meta.get('__ping')
  }

  /** Refuses new operations at once, lets the writes already issued finish, then closes lmdb. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.allSettled([...this.#pendingWrites])
      await this.#env.close()
    })()
    return this.#closing
  }
}
