import { applyUpdate } from '../apply-update.js'
import { ConflictError, DuplicateKeyError, InvalidQueryError, RecordsError } from '../errors.js'
import { pageInMemory, project } from '../in-memory-query.js'
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
import type { Engine } from './engine.js'
import { recordTexts } from '../record-text.js'
import { findSteps, Pacer, runSync } from './query-plan.js'

interface Staged {
  /** The committed record this write was based on; commit refuses if it changed meanwhile. */
  base: StoredRecord | undefined
  next: StoredRecord | undefined
}

/**
 * Buffers a transaction's writes (its reads see them) and applies them in one lmdb write transaction at
 * the end, after checking that no record it touched changed since (optimistic; `ConflictError` otherwise).
 */
export class EmbeddedTransaction implements Transaction {
  readonly #staged = new Map<string, Map<string, Staged>>()

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

  async commit(): Promise<void> {
    if (this.#staged.size === 0) return
    await this.engine.write(() => {
      for (const [name, staged] of this.#staged) {
        for (const [id, { base, next }] of staged) {
          const current = this.engine.row(name, id)
          if (JSON.stringify(current?.record) !== JSON.stringify(base)) throw new ConflictError()
          this.engine.putRecord(name, current, next)
        }
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

  #get(id: string): StoredRecord | undefined {
    const staged = this.staged.get(id)
    return staged ? staged.next : this.engine.row(this.name, id)?.record
  }

  #find(filter: Filter, options: FindOptions = {}): StoredRecord[] {
    const sort = normalizeSort(options.sort)
    const after = typeof options.after === 'string' ? this.#get(options.after) : options.after
    if (typeof options.after === 'string' && !after) throw new InvalidQueryError(`after: no record ${options.after}`)
    // Read to the end in one go (the transaction's writes are merged in), and outside the query budget.
    const committed = runSync(findSteps(this.engine, this.name, filter, { sort }, new Pacer(false), false))
      .filter((row) => !this.staged.has(row.id))
      .map((row) => row.record)
    const pending = [...this.staged.values()].flatMap(({ next }) => (next ? [next] : []))
    return pageInMemory(
      [...committed, ...pending],
      filter,
      { sort, after, skip: options.skip, limit: options.limit },
      (record) => record,
    )
  }

  #stage(before: StoredRecord | undefined, id: string, next: StoredRecord | undefined): void {
    const base = this.staged.has(id) ? this.staged.get(id)?.base : before
    this.staged.set(id, { base, next })
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return project(this.#find(filter, options) as T[], options.projection)
  }

  async findText(filter: Filter, options: Omit<FindOptions, 'projection'> = {}): Promise<RecordText[]> {
    return recordTexts(this.#find(filter, options))
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
    this.#stage(undefined, record._id, record)
    return record
  }

  async updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<T | null> {
    const [before] = this.#find(filter, { limit: 1 })
    if (!before) return null
    checkHash(before, options)
    const after = applyUpdate(before, update)
    this.#stage(before, before._id, after)
    return after as T
  }

  async deleteOne(filter: Filter, options?: UpdateOptions): Promise<T | null> {
    const [before] = this.#find(filter, { limit: 1 })
    if (!before) return null
    checkHash(before, options)
    this.#stage(before, before._id, undefined)
    return before as T
  }

  async deleteMany(filter: Filter): Promise<number> {
    const doomed = this.#find(filter)
    for (const record of doomed) this.#stage(record, record._id, undefined)
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
