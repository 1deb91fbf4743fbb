import { applyUpdate } from '../apply-update.js'
import { ConflictError, DuplicateKeyError, InvalidQueryError, RecordsError } from '../errors.js'
import { pageInMemory, project, sortInMemory } from '../in-memory-query.js'
import { compileFilter } from '../match.js'
import { normalizeSort } from '../sort-order.js'
import type {
  Collection,
  Filter,
  FindOptions,
  IndexInfo,
  Projection,
  RecordText,
  StoredRecord,
  Transaction,
  Update,
  UpdateOptions,
} from '../port.js'
import { checkHash, checkRecord } from './embedded-collection.js'
import { sequencedId, sequencesOf } from '../sequenced-id.js'
import type { Engine } from './engine.js'
import { findSteps } from './find.js'
import { spent } from './long-work.js'
import { Pacer, runSync } from './steps.js'
import { Row } from './row.js'

interface Staged {
  /** The stored text of the committed record this write was based on; commit refuses if it changed meanwhile. */
  base: string | undefined
  next: StoredRecord | undefined
}

/** What a read inside a transaction finds: a committed row it did not write, or a record it staged. */
type Found = Row | StoredRecord

const recordOf = (found: Found): StoredRecord => (found instanceof Row ? found.record : found)

/**
 * Buffers a transaction's writes (its reads see them) and applies them in one lmdb write transaction at
 * the end, after checking that no record it touched changed since (optimistic; `ConflictError` otherwise).
 */
export class EmbeddedTransaction implements Transaction {
  readonly #staged = new Map<string, Map<string, Staged>>()
  readonly #appended: { name: string; partition: string; entry: Omit<StoredRecord, '_id'> }[] = []

  constructor(private readonly engine: Engine) {}

  collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
    return new TransactionCollection<T>(this.engine, name, this.staged(name))
  }

  staged(name: string): Map<string, Staged> {
    let staged = this.#staged.get(name)
    if (!staged) {
      staged = new Map()
      this.#staged.set(name, staged)
    }
    return staged
  }

  async append(name: string, partition: string, entry: Omit<StoredRecord, '_id'>): Promise<void> {
    this.#appended.push({ name, partition, entry })
  }

  async commit(): Promise<void> {
    if (this.#staged.size === 0 && this.#appended.length === 0) return
    await this.engine.write(() => {
      for (const [name, staged] of this.#staged) {
        for (const [id, { base, next }] of staged) {
          const current = this.engine.row(name, id)
          // A stored text is its record's `JSON.stringify` (`putRecord`): equal texts, equal records, neither
          // decoded. Not `_hash`: the store does not keep it, and a record may have none.
          if (current?.json !== base) throw new ConflictError()
          this.engine.putRecord(name, current, next)
        }
      }
      // Numbered inside lmdb's write transaction, which one process at a time holds: commit order, without the
      // conflicts (and retries) a counter read before the commit would cost every concurrent writer.
      for (const { name, partition, entry } of this.#appended) {
        const counters = sequencesOf(name)
        const counter = this.engine.row(counters, partition)
        const seq = (counter ? (counter.record.seq as number) : 0) + 1
        this.engine.putRecord(counters, counter, { _id: partition, seq })
        this.engine.putRecord(name, undefined, { ...entry, _id: sequencedId(partition, seq), seq })
      }
    })
  }
}

class TransactionCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly engine: Engine,
    private readonly name: string,
    private readonly staged: Map<string, Staged>,
  ) {}

  /** The record as this transaction sees it: its own write, else the committed row. */
  #get(id: string): Found | undefined {
    this.engine.stats.reads++
    const staged = this.staged.get(id)
    return staged ? staged.next : this.engine.row(this.name, id)
  }

  /** Read to the end in one go, outside the query budget, the transaction's own writes merged in. */
  #find(filter: Filter, options: FindOptions = {}): Found[] {
    const sort = normalizeSort(options.sort)
    let after = typeof options.after === 'object' ? options.after : undefined
    if (typeof options.after === 'string') {
      const found = this.#get(options.after)
      if (!found) throw new InvalidQueryError(`after: no record ${options.after}`)
      after = recordOf(found)
    }
    const page = { sort, after, skip: options.skip, limit: options.limit }
    if (typeof filter._id === 'string') {
      // Only that record can match: one lookup, however many writes are staged (a bulk call reads by `_id` once
      // or twice per operation; merging every staged record into each read made 1,000 operations O(n²)).
      const found = this.#get(filter._id)
      const rest: Filter = { ...filter }
      delete rest._id
      const matches = found && (Object.keys(rest).length === 0 || compileFilter(rest).test(recordOf(found)))
      return sortInMemory(matches ? [found] : [], page, recordOf)
    }
    // Read in one go (the transaction needs every match), charged to its account: its next turn waits the longer.
    const started = performance.now()
    const committed: Found[] = runSync(
      findSteps(this.engine, this.name, filter, { sort }, new Pacer(false), false),
    ).filter((row) => !this.staged.has(row.id))
    spent(performance.now() - started)
    // A record can equal a string at a top-level field only by holding it there or an array (that may hold it):
    // checked first, it spares matching every staged record (a bulk call's reads by `externalId`).
    const field = Object.keys(filter).find(
      (key) => typeof filter[key] === 'string' && !key.startsWith('$') && !key.includes('.') && key !== '__proto__',
    )
    const pending: StoredRecord[] = []
    for (const { next } of this.staged.values()) {
      if (!next) continue
      // Each staged record is read again, as a scanned one is.
      this.engine.stats.reads++
      const value = field === undefined ? undefined : next[field]
      if (field === undefined || (typeof value === 'string' ? value === filter[field] : Array.isArray(value))) {
        pending.push(next)
      }
    }
    return pageInMemory([...committed, ...pending], filter, page, recordOf)
  }

  /** Stages `next` for `id`; `found` is what the write read (none for an insert), its base unless already staged. */
  #stage(id: string, found: Found | undefined, next: StoredRecord | undefined): void {
    const staged = this.staged.get(id)
    this.staged.set(id, { base: staged ? staged.base : found instanceof Row ? found.json : undefined, next })
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return project(this.#find(filter, options).map(recordOf) as T[], options.projection)
  }

  async findText(filter: Filter, options: Omit<FindOptions, 'projection'> = {}): Promise<RecordText[]> {
    return this.#find(filter, options).map((found) =>
      found instanceof Row ? { _id: found.id, json: found.json } : { _id: found._id, json: JSON.stringify(found) },
    )
  }

  async findOne(filter: Filter, options: { projection?: Projection } = {}): Promise<T | null> {
    return (await this.find(filter, { limit: 1, projection: options.projection }))[0] ?? null
  }

  async count(filter: Filter): Promise<number> {
    return this.#find(filter).length
  }

  async insertOne(record: T): Promise<T> {
    checkRecord(record)
    if (this.#get(record._id)) throw new DuplicateKeyError('_id_', record._id)
    this.#stage(record._id, undefined, record)
    return record
  }

  async updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<T | null> {
    const [found] = this.#find(filter, { limit: 1 })
    if (!found) return null
    const before = recordOf(found)
    checkHash(before, options)
    const after = applyUpdate(before, update)
    this.#stage(before._id, found, after)
    return after as T
  }

  async deleteOne(filter: Filter, options?: UpdateOptions): Promise<T | null> {
    const [found] = this.#find(filter, { limit: 1 })
    if (!found) return null
    const before = recordOf(found)
    checkHash(before, options)
    this.#stage(before._id, found, undefined)
    return before as T
  }

  async deleteMany(filter: Filter): Promise<number> {
    const doomed = this.#find(filter)
    for (const found of doomed) this.#stage(recordOf(found)._id, found, undefined)
    return doomed.length
  }

  async ensureIndex(): Promise<void> {
    throw new RecordsError('indexes cannot change inside a transaction')
  }

  async dropIndex(): Promise<void> {
    throw new RecordsError('indexes cannot change inside a transaction')
  }

  async indexes(): Promise<IndexInfo[]> {
    return this.engine.describeIndexes(this.name)
  }
}
