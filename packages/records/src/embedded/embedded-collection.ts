import { applyUpdate } from '../apply-update.js'
import { ConflictError, DuplicateKeyError, InvalidQueryError } from '../errors.js'
import { project } from '../in-memory-query.js'
import { normalizeSort } from '../sort-order.js'
import type {
  Collection,
  Filter,
  FindOptions,
  IndexSpec,
  Projection,
  RecordText,
  StoredRecord,
  Update,
  UpdateOptions,
} from '../port.js'
import type { Engine } from './engine.js'
import { countRecords, findRows, Row } from './query-plan.js'

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

  #find(filter: Filter, options: FindOptions = {}): Row[] {
    // Read as text: under the `_id` order the page needs only its `_id`, so it is decoded only when used.
    let after: Row | undefined
    if (options.after !== undefined) {
      const json = this.engine.records(this.name).get(options.after)
      if (json === undefined) throw new InvalidQueryError(`after: no record ${options.after}`)
      after = new Row(options.after, json)
    }
    return findRows(this.engine, this.name, filter, {
      sort: normalizeSort(options.sort),
      after,
      skip: options.skip,
      limit: options.limit,
    })
  }

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return project(
      this.#find(filter, options).map((row) => row.record as T),
      options.projection,
    )
  }

  async findText(filter: Filter, options: Omit<FindOptions, 'projection'> = {}): Promise<RecordText[]> {
    return this.#find(filter, options).map((row) => ({ _id: row.id, json: row.json }))
  }

  async findOne(filter: Filter, options: { projection?: Projection } = {}): Promise<T | null> {
    return (await this.find(filter, { limit: 1, projection: options.projection }))[0] ?? null
  }

  async count(filter: Filter): Promise<number> {
    return countRecords(this.engine, this.name, filter)
  }

  async insertOne(record: T): Promise<T> {
    checkRecord(record)
    await this.engine.write([this.name], () => {
      if (this.engine.records(this.name).doesExist(record._id)) throw new DuplicateKeyError('_id_', record._id)
      this.engine.putRecord(this.name, undefined, record)
    })
    return record
  }

  async updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<T | null> {
    return this.engine.write([this.name], () => {
      const before = this.#find(filter, { limit: 1 })[0]?.record
      if (!before) return null
      checkHash(before, options)
      const after = applyUpdate(before, update)
      this.engine.putRecord(this.name, before, after)
      return after as T
    })
  }

  async deleteOne(filter: Filter, options?: UpdateOptions): Promise<T | null> {
    return this.engine.write([this.name], () => {
      const before = this.#find(filter, { limit: 1 })[0]?.record
      if (!before) return null
      checkHash(before, options)
      this.engine.putRecord(this.name, before, undefined)
      return before as T
    })
  }

  async deleteMany(filter: Filter): Promise<number> {
    return this.engine.write([this.name], () => {
      const doomed = this.#find(filter)
      for (const { record } of doomed) this.engine.putRecord(this.name, record, undefined)
      return doomed.length
    })
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    this.engine.index(this.name, spec.name)
    await this.engine.write([this.name], () => this.engine.addIndex(this.name, spec))
  }

  async dropIndex(name: string): Promise<void> {
    await this.engine.write([this.name], () => this.engine.removeIndex(this.name, name))
  }
}
