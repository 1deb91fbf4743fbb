import { open, type Database, type Key, type RootDatabase } from 'lmdb'
import { DuplicateKeyError, RecordsError, StoreUnavailableError } from '../errors.js'
import type { IndexSpec, StoredRecord } from '../port.js'
import {
  formatOf,
  indexEntries,
  isIndexed,
  sameSpec,
  UNIQUE_KEYS,
  type IndexEntries,
  type IndexKey,
  type StoredIndex,
} from './index-keys.js'

/** Records as JSON text: a page of whole records is answered without decoding and re-encoding them. */
type RecordsDb = Database<string, string>
/** Entry values: the record's `_id` in unique indexes, nothing in the others (the `_id` ends the key). */
type IndexDb = Database<string | null, IndexKey>

/**
 * Records are LZ4-compressed against this dictionary: the system fields every stored document repeats, so a
 * document takes about half the pages of its text. Part of the stored format: records written with one
 * dictionary cannot be read with another.
 */
const RECORDS_COMPRESSION = {
  threshold: 128,
  dictionary: Buffer.from(
    JSON.stringify({
      _id: '000000000000000000000000',
      _createdOn: '2026-01-01T00:00:00.000Z',
      _createdByUserId: '000000000000000000000000',
      _lastModifiedOn: '2026-01-01T00:00:00.000Z',
      _lastModifiedByUserId: '000000000000000000000000',
      _documentDefinitionId: '000000000000000000000000',
      _environmentId: 'default',
      externalId: '',
      status: 'ready',
      accessGroups: [],
      _hash: '',
    }),
  ),
}

/** Earlier versions kept records as msgpack under `r/<collection>`, sharing the key lists stored under the symbol. */
const MSGPACK_RECORDS = 'r/'
const MSGPACK_STRUCTURES = Symbol.for('structures')

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
  return stored.format === UNIQUE_KEYS ? values : [...values, id]
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

  constructor(path: string) {
    this.#env = open({ path, maxDbs: 4096, mapSize: 2 ** 34 })
    this.#meta = this.#env.openDB({ name: '__meta', keyEncoding: 'ordered-binary' })
    this.#upgradeRecords()
    this.#upgradeIndexes()
  }

  /** Rewrites, once, the records an earlier version stored as msgpack into JSON text, collection by collection. */
  #upgradeRecords(): void {
    // Database names are the root's keys; collected first, since opening a database writes one.
    const names = [...this.#env.getKeys()].filter(
      (name): name is string => typeof name === 'string' && name.startsWith(MSGPACK_RECORDS),
    )
    for (const name of names) {
      const old = this.#env.openDB<StoredRecord, string | symbol>({
        name,
        keyEncoding: 'ordered-binary',
        sharedStructuresKey: MSGPACK_STRUCTURES,
      })
      // An emptied database stays: dropping it could pull it from under another process opening the directory.
      if (old.getKeysCount({ limit: 1 }) === 0) continue
      const records = this.records(name.slice(MSGPACK_RECORDS.length))
      // Copied and emptied in one transaction: a second open (or another process) finds nothing left to copy,
      // so it can never copy a stale record over one written since.
      this.#env.transactionSync(() => {
        // Without `start` the range begins after the symbol key of the shared structures.
        for (const { key, value } of old.getRange()) {
          if (typeof key === 'string') records.putSync(key, JSON.stringify(value))
        }
        clear(old)
        old.removeSync(MSGPACK_STRUCTURES)
      })
    }
  }

  /**
   * Rebuilds the indexes an earlier version built in another entry format, once, as the store opens: every
   * index is then in the format this version reads and writes. Processes sharing a data dir must run one version.
   */
  #upgradeIndexes(): void {
    const outdated = (collection: string) =>
      this.indexes(collection).filter((stored) => stored.format !== formatOf(stored.spec))
    for (const collection of [...this.#meta.getKeys()]) {
      if (outdated(collection).length === 0) continue
      // Opened before the write: lmdb cannot iterate a database first opened inside one.
      this.records(collection)
      for (const { spec } of this.indexes(collection)) this.index(collection, spec.name)
      this.#env.transactionSync(() => {
        for (const { spec } of outdated(collection)) this.addIndex(collection, spec)
      })
    }
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
        compression: RECORDS_COMPRESSION,
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
    const unique = stored.format === UNIQUE_KEYS
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

  /**
   * Adds the index and builds it from the existing records; an index built by an older version in another
   * entry format is rebuilt. Call inside `write`.
   */
  addIndex(collection: string, spec: IndexSpec): void {
    const indexes = this.indexes(collection)
    const existing = indexes.find((stored) => stored.spec.name === spec.name)
    if (existing) {
      if (!sameSpec(existing.spec, spec)) {
        throw new RecordsError(`index ${spec.name} already exists with another definition`)
      }
      if (existing.format === formatOf(existing.spec)) return
    }
    const definition = existing?.spec ?? spec
    const stored: StoredIndex = { spec: definition, multikey: false, format: formatOf(definition), multikeyPaths: [] }
    const db = this.index(collection, spec.name)
    clear(db)
    for (const { value } of this.records(collection).getRange()) {
      const record = JSON.parse(value) as StoredRecord
      if (!isIndexed(definition, record)) continue
      const entries = indexEntries(definition, record)
      for (const key of entries.keys) this.#putEntry(db, stored, key, record._id)
      noteArrays(stored, entries)
    }
    this.#meta.putSync(
      collection,
      existing ? indexes.map((other) => (other === existing ? stored : other)) : [...indexes, stored],
    )
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
