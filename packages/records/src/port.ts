/**
 * The records port: a narrow, Mongo-shaped collection API. Services use this and nothing else, so the
 * embedded (lmdb + mingo) and mongo adapters are interchangeable and one contract suite covers both.
 */

/**
 * Every stored record has a string `_id`. Records hold JSON values (strings, numbers, booleans, null, arrays,
 * objects): the embedded adapter keeps each record as its JSON text.
 */
export interface StoredRecord {
  _id: string
  [field: string]: unknown
}

/** A Mongo filter; client-supplied ones must go through `checkFilter` first. */
export type Filter = Record<string, unknown>
/** `{field: 1 | -1}`, applied in key order; `_id` is always the final tie-breaker. */
export type Sort = Record<string, 1 | -1>
/** `{field: 1}` (include) or `{field: 0}` (exclude), as Mongo. */
export type Projection = Record<string, 0 | 1>

/** A record as JSON text (what `JSON.stringify` gives for it), with its `_id`. */
export interface RecordText {
  _id: string
  json: string
}

export interface FindOptions {
  sort?: Sort
  limit?: number
  skip?: number
  projection?: Projection
  /**
   * Keyset pagination: the `_id` of the last record of the previous page under the same filter and sort, or
   * its position (its `_id` and its values of the sort's fields), which needs no stored record: a page then
   * continues from where a record deleted since stood.
   */
  after?: string | StoredRecord
}

/** Either a whole replacement record (without `_id`), or `$set` / `$unset` of (dot) paths. */
export type Update =
  { $set?: Record<string, unknown>; $unset?: Record<string, true | 1 | ''> } | Omit<StoredRecord, '_id'>

export interface UpdateOptions {
  /** Optimistic concurrency: refuse with `ConflictError` unless the stored `_hash` equals this. */
  expectedHash?: string
}

export interface IndexSpec {
  name: string
  fields: Record<string, 1 | -1>
  unique?: boolean
  /** Index only records matching this filter (e.g. `{externalId: {$exists: true}}`). */
  partial?: Filter
}

/** An index as the store holds it: `building` until every existing record is in it (queries ignore it meanwhile). */
export interface IndexInfo extends IndexSpec {
  state: 'building' | 'ready'
}

export interface Collection<T extends StoredRecord = StoredRecord> {
  find(filter: Filter, options?: FindOptions): Promise<T[]>
  /**
   * `find` without projection, each record as JSON text. An answer made of whole records is assembled from
   * these, without decoding and re-encoding each record where the adapter keeps them as JSON (the embedded one).
   */
  findText(filter: Filter, options?: Omit<FindOptions, 'projection'>): Promise<RecordText[]>
  findOne(filter: Filter, options?: { projection?: Projection }): Promise<T | null>
  count(filter: Filter): Promise<number>
  /** Throws `DuplicateKeyError` when a unique index (or `_id`) is taken. */
  insertOne(record: T): Promise<T>
  /** Updates the first match; resolves to the record after the update, or null when nothing matched. */
  updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<T | null>
  /** Resolves to the deleted record, or null when nothing matched. */
  deleteOne(filter: Filter, options?: UpdateOptions): Promise<T | null>
  deleteMany(filter: Filter): Promise<number>
  /**
   * Creates the index when missing (idempotent) and resolves once it is ready; both adapters use indexes to
   * answer filters and sorts. A unique index over records that break it is refused (`DuplicateKeyError`).
   */
  ensureIndex(spec: IndexSpec): Promise<void>
  dropIndex(name: string): Promise<void>
  /** The collection's indexes (not the implicit `_id` one), each with its build state. */
  indexes(): Promise<IndexInfo[]>
}

/** Writes through a transaction's collections commit together or not at all. */
export interface Transaction {
  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T>
  /**
   * Appends `entry` to the log collection `name` under the next number of `partition`'s sequence, taken as the
   * transaction commits: one partition's entries are numbered 1, 2, 3... in commit order, so a reader that has
   * read up to n never misses one committed later. Stored with `_id` `sequencedId(partition, seq)` and `seq`.
   */
  append(name: string, partition: string, entry: Omit<StoredRecord, '_id'>): Promise<void>
}

export interface RecordStore {
  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T>
  /** Runs `work` so that its writes commit atomically; rejected work leaves nothing behind. */
  transaction<R>(work: (tx: Transaction) => Promise<R>): Promise<R>
  /** Drops a collection with its records and indexes. */
  dropCollection(name: string): Promise<void>
  /** Resolves when the store answers; rejects with `StoreUnavailableError` otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}
