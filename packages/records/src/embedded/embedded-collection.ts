import { applyUpdate } from '../apply-update.js'
import { ConflictError, DuplicateKeyError, InvalidQueryError } from '../errors.js'
import { project } from '../in-memory-query.js'
import { normalizeSort } from '../sort-order.js'
import type {
  Collection,
  Filter,
  FindOptions,
  IndexInfo,
  IndexSpec,
  Projection,
  RecordText,
  StoredRecord,
  Update,
  UpdateOptions,
} from '../port.js'
import type { Engine } from './engine.js'
import { countSteps } from './count.js'
import { findSteps } from './find.js'
import { accounted } from './long-work.js'
import { Pacer, runAsync, runSync } from './steps.js'
import { Row } from './row.js'

export function checkRecord(record: StoredRecord): void {
  if (typeof record._id !== 'string' || record._id === '') throw new InvalidQueryError('records need a string _id')
}

export function checkHash(record: StoredRecord, options: UpdateOptions | undefined): void {
  if (options?.expectedHash !== undefined && record._hash !== options.expectedHash) throw new ConflictError()
}

/** A collection of the embedded adapter: reads straight from lmdb, each write atomic and durable (group commit). */
export class EmbeddedCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly engine: Engine,
    private readonly name: string,
  ) {}

  /** The page's options with `after` read as text: under the `_id` order it needs only its `_id`. */
  #options(options: FindOptions): {
    sort: ReturnType<typeof normalizeSort>
    after?: Row
    skip?: number
    limit?: number
  } {
    let after: Row | undefined
    if (typeof options.after === 'object') after = new Row(options.after._id, JSON.stringify(options.after))
    else if (options.after !== undefined) {
      after = this.engine.row(this.name, options.after)
      if (!after) throw new InvalidQueryError(`after: no record ${options.after}`)
    }
    return { sort: normalizeSort(options.sort), after, skip: options.skip, limit: options.limit }
  }

  /** A read: charged to its work account, and a long scan gives the event loop a turn now and then. */
  #find(filter: Filter, options: FindOptions = {}): Row[] | Promise<Row[]> {
    return accounted(() => {
      const pacer = new Pacer(true)
      return runAsync(this.engine, pacer, findSteps(this.engine, this.name, filter, this.#options(options), pacer))
    })
  }

  /** Inside a write: to the end in one go, and whatever it holds (the write needs every match). */
  #findNow(filter: Filter, options: FindOptions = {}): Row[] {
    return runSync(findSteps(this.engine, this.name, filter, this.#options(options), new Pacer(false), false))
  }

  /** A read by `_id` alone (the most common one): one read, without a plan; undefined for any other read. */
  #byId(filter: Filter, options: FindOptions): Row[] | undefined {
    if (typeof filter._id !== 'string' || options.after !== undefined || options.skip || options.limit === 0) return
    if (Object.keys(filter).length !== 1) return
    this.engine.stats.reads++
    const row = this.engine.row(this.name, filter._id)
    return row ? [row] : []
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const rows = this.#byId(filter, options) ?? (await this.#find(filter, options))
    return project(
      rows.map((row) => row.record as T),
      options.projection,
    )
  }

  async findText(filter: Filter, options: Omit<FindOptions, 'projection'> = {}): Promise<RecordText[]> {
    return (this.#byId(filter, options) ?? (await this.#find(filter, options))).map((row) => ({
      _id: row.id,
      json: row.json,
    }))
  }

  async findOne(filter: Filter, options: { projection?: Projection } = {}): Promise<T | null> {
    return (await this.find(filter, { limit: 1, projection: options.projection }))[0] ?? null
  }

  async count(filter: Filter): Promise<number> {
    return accounted(() => {
      const pacer = new Pacer(true)
      return runAsync(this.engine, pacer, countSteps(this.engine, this.name, filter, pacer))
    })
  }

  async insertOne(record: T): Promise<T> {
    checkRecord(record)
    await this.engine.write(() => {
      if (this.engine.row(this.name, record._id)) throw new DuplicateKeyError('_id_', record._id)
      this.engine.putRecord(this.name, undefined, record)
    })
    return record
  }

  async updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<T | null> {
    return this.engine.write(() => {
      const before = this.#findNow(filter, { limit: 1 })[0]
      if (!before) return null
      checkHash(before.record, options)
      const after = applyUpdate(before.record, update)
      this.engine.putRecord(this.name, before, after)
      return after as T
    })
  }

  async deleteOne(filter: Filter, options?: UpdateOptions): Promise<T | null> {
    return this.engine.write(() => {
      const before = this.#findNow(filter, { limit: 1 })[0]
      if (!before) return null
      checkHash(before.record, options)
      this.engine.putRecord(this.name, before, undefined)
      return before.record as T
    })
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.engine.write(() => {
      const doomed = this.#findNow(filter)
      for (const row of doomed) this.engine.putRecord(this.name, row, undefined)
      return doomed.length
    })
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    await this.engine.addIndex(this.name, spec)
  }

  async dropIndex(name: string): Promise<void> {
    await this.engine.removeIndex(this.name, name)
  }

  async indexes(): Promise<IndexInfo[]> {
    return this.engine.describeIndexes(this.name)
  }
}
