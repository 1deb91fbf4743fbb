import { open, type Database, type RootDatabase } from 'lmdb'
import { DuplicateKeyError, RecordsError } from '../errors.js'
import type { IndexSpec, StoredRecord } from '../port.js'
import { hasArrayValue, indexValues, isIndexed, KEY_END, sameSpec, type IndexKey, type StoredIndex } from './index-keys.js'

type RecordsDb = Database<StoredRecord, string>
type IndexDb = Database<null, IndexKey>

/** `clearSync` opens its own transaction, which cannot nest in ours. */
function clear(db: Database<unknown, string | IndexKey>): void {
  for (const key of db.getKeys()) db.removeSync(key)
}

/**
 * The lmdb environment behind the embedded adapter: one sub-database of records per collection, one per
 * index, and a meta database holding index definitions (re-read on every operation, so processes sharing
 * the data dir see each other's indexes). Writes run in `transactionSync`, which aborts on a throw and
 * returns only once the commit is flushed to disk.
 */
export class Engine {
  readonly stats = { reads: 0 }
  readonly #env: RootDatabase
  readonly #meta: Database<StoredIndex[], string>
  readonly #dbs = new Map<string, Database<unknown, string | IndexKey>>()

  constructor(path: string) {
    this.#env = open({ path, maxDbs: 4096, mapSize: 2 ** 34 })
    this.#meta = this.#env.openDB({ name: '__meta', keyEncoding: 'ordered-binary' })
  }

  records(collection: string): RecordsDb {
    return this.#open(`r/${collection}`) as RecordsDb
  }

  index(collection: string, name: string): IndexDb {
    return this.#open(`i/${collection}/${name}`) as IndexDb
  }

  #open(name: string): Database<unknown, string | IndexKey> {
    let db = this.#dbs.get(name)
    if (!db) {
      db = this.#env.openDB<unknown, string | IndexKey>({ name, keyEncoding: 'ordered-binary' })
      this.#dbs.set(name, db)
    }
    return db
  }

  indexes(collection: string): StoredIndex[] {
    return this.#meta.get(collection) ?? []
  }

  /**
   * Runs `work` in one durable write transaction; a throw rolls everything back. The sub-databases of the
   * collections it touches are opened first: lmdb cannot iterate one first opened inside a write.
   */
  async write<R>(collections: string[], work: () => R): Promise<R> {
    for (const collection of collections) {
      this.records(collection)
      for (const { spec } of this.indexes(collection)) this.index(collection, spec.name)
    }
    return this.#env.transactionSync(work)
  }

  /** Replaces `before` by `after` (either may be absent), keeping every index in step. Call inside `write`. */
  putRecord(collection: string, before: StoredRecord | undefined, after: StoredRecord | undefined): void {
    const indexes = this.indexes(collection)
    let multikeyChanged = false
    for (const stored of indexes) {
      const { spec } = stored
      const db = this.index(collection, spec.name)
      const oldValues = before && isIndexed(spec, before) ? indexValues(spec, before) : undefined
      const newValues = after && isIndexed(spec, after) ? indexValues(spec, after) : undefined
      if (oldValues && newValues && JSON.stringify(oldValues) === JSON.stringify(newValues)) continue
      if (oldValues && before) db.removeSync([...oldValues, before._id])
      if (newValues && after) {
        if (spec.unique) this.#checkUnique(db, spec, newValues, after._id)
        db.putSync([...newValues, after._id], null)
        if (!stored.multikey && hasArrayValue(spec, after)) {
          stored.multikey = true
          multikeyChanged = true
        }
      }
    }
    if (multikeyChanged) this.#meta.putSync(collection, indexes)
    const records = this.records(collection)
    if (after) records.putSync(after._id, after)
    else if (before) records.removeSync(before._id)
  }

  #checkUnique(db: IndexDb, spec: IndexSpec, values: IndexKey, id: string): void {
    for (const key of db.getKeys({ start: values, end: [...values, KEY_END] })) {
      if (key.at(-1) !== id) throw new DuplicateKeyError(spec.name, values.filter((_, i) => i % 2 === 1))
    }
  }

  /** Adds the index and builds it from the existing records. Call inside `write`. */
  addIndex(collection: string, spec: IndexSpec): void {
    const indexes = this.indexes(collection)
    const existing = indexes.find((stored) => stored.spec.name === spec.name)
    if (existing) {
      if (sameSpec(existing.spec, spec)) return
      throw new RecordsError(`index ${spec.name} already exists with another definition`)
    }
    const stored: StoredIndex = { spec, multikey: false }
    const db = this.index(collection, spec.name)
    clear(db)
    for (const { value: record } of this.records(collection).getRange()) {
      if (!isIndexed(spec, record)) continue
      const values = indexValues(spec, record)
      if (spec.unique) this.#checkUnique(db, spec, values, record._id)
      db.putSync([...values, record._id], null)
      stored.multikey ||= hasArrayValue(spec, record)
    }
    this.#meta.putSync(collection, [...indexes, stored])
  }

  /** Call inside `write`. */
  removeIndex(collection: string, name: string): void {
    const indexes = this.indexes(collection)
    if (!indexes.some((stored) => stored.spec.name === name)) return
    clear(this.index(collection, name))
    this.#meta.putSync(collection, indexes.filter((stored) => stored.spec.name !== name))
  }

  /** Call inside `write`. */
  removeCollection(collection: string): void {
    for (const { spec } of this.indexes(collection)) clear(this.index(collection, spec.name))
    clear(this.records(collection))
    this.#meta.removeSync(collection)
  }

  ping(): void {
    this.#meta.get('__ping')
  }

  async close(): Promise<void> {
    await this.#env.close()
  }
}
