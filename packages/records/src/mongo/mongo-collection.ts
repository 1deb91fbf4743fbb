import {
  MongoServerError,
  type ClientSession,
  type Collection as DriverCollection,
  type Document,
  type Filter as DriverFilter,
  type Sort as DriverSort,
} from 'mongodb'
import { isModifier } from '../apply-update.js'
import { ConflictError, InvalidQueryError } from '../errors.js'
import { afterFilter } from '../keyset.js'
import { recordTexts } from '../record-text.js'
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
import { ignoreCode, mapDuplicate, mapQueryErrors } from './mongo-errors.js'

type Doc = Document & { _id: string }
const NAMESPACE_NOT_FOUND = 26
const INDEX_NOT_FOUND = 27
/** "The first match" of updateOne/deleteOne, as on the embedded adapter. */
const FIRST: DriverSort = { _id: 1 }

/** A thin mapping of the port onto the official driver; shared logic (sort, keyset) lives outside. */
export class MongoCollection<T extends StoredRecord> implements Collection<T> {
  constructor(
    private readonly collection: DriverCollection<Doc>,
    /** The server stops any one operation after this long (`maxTimeMS`), so no query holds it for long. */
    private readonly maxTimeMS: number,
    private readonly session?: ClientSession,
  ) {}

  async find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    const sort = normalizeSort(options.sort)
    let query = filter
    if (options.after !== undefined) {
      const after =
        typeof options.after === 'object'
          ? options.after
          : await this.collection.findOne({ _id: options.after }, { session: this.session, maxTimeMS: this.maxTimeMS })
      if (!after) throw new InvalidQueryError(`after: no record ${String(options.after)}`)
      query = { $and: [filter, afterFilter(sort, after)] }
    }
    // No spilling to disk (the server's default since 6.0): a sort no index serves stays within Mongo's memory
    // limit, or is refused as the embedded adapter refuses it.
    const cursor = this.collection
      .find(query as DriverFilter<Doc>, { session: this.session, allowDiskUse: false, maxTimeMS: this.maxTimeMS })
      .sort(sort.map(({ path, direction }): [string, 1 | -1] => [path, direction]))
    if (options.skip) cursor.skip(options.skip)
    if (options.limit !== undefined) cursor.limit(options.limit)
    if (options.projection && Object.keys(options.projection).length > 0) cursor.project(options.projection)
    return (await mapQueryErrors(() => cursor.toArray())) as T[]
  }

  async findText(filter: Filter, options: Omit<FindOptions, 'projection'> = {}): Promise<RecordText[]> {
    return recordTexts(await this.find(filter, options))
  }

  async findOne(filter: Filter, options: { projection?: Projection } = {}): Promise<T | null> {
    return (await this.find(filter, { limit: 1, projection: options.projection }))[0] ?? null
  }

  async count(filter: Filter): Promise<number> {
    return mapQueryErrors(() =>
      this.collection.countDocuments(filter as DriverFilter<Doc>, { session: this.session, maxTimeMS: this.maxTimeMS }),
    )
  }

  async insertOne(record: T): Promise<T> {
    await mapDuplicate(() => this.collection.insertOne({ ...record }, { session: this.session }))
    return record
  }

  async updateOne(filter: Filter, update: Update, options?: UpdateOptions): Promise<T | null> {
    const guarded = this.#guard(filter, options)
    const common = { sort: FIRST, returnDocument: 'after' as const, session: this.session, maxTimeMS: this.maxTimeMS }
    const after = await mapDuplicate(() =>
      isModifier(update)
        ? this.collection.findOneAndUpdate(guarded, update, common)
        : this.collection.findOneAndReplace(guarded, update, common),
    )
    if (!after) await this.#explainMiss(filter, options)
    return after as T | null
  }

  async deleteOne(filter: Filter, options?: UpdateOptions): Promise<T | null> {
    const before = await this.collection.findOneAndDelete(this.#guard(filter, options), {
      sort: FIRST,
      session: this.session,
      maxTimeMS: this.maxTimeMS,
    })
    if (!before) await this.#explainMiss(filter, options)
    return before as T | null
  }

  async deleteMany(filter: Filter): Promise<number> {
    const result = await this.collection.deleteMany(filter as DriverFilter<Doc>, {
      session: this.session,
      maxTimeMS: this.maxTimeMS,
    })
    return result.deletedCount
  }

  async ensureIndex(spec: IndexSpec): Promise<void> {
    await mapDuplicate(() =>
      this.collection.createIndex(spec.fields, {
        name: spec.name,
        unique: spec.unique ?? false,
        ...(spec.partial ? { partialFilterExpression: spec.partial } : {}),
      }),
    )
  }

  async dropIndex(name: string): Promise<void> {
    await ignoreCode(INDEX_NOT_FOUND, () => this.collection.dropIndex(name))
  }

  /** `listIndexes` lists finished builds only: each is ready. */
  async indexes(): Promise<IndexInfo[]> {
    const listed = await this.collection
      .listIndexes({ session: this.session })
      .toArray()
      .catch((error: unknown) => {
        if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return []
        throw error
      })
    return listed
      .filter((index) => index.name !== '_id_')
      .map((index) => ({
        name: index.name as string,
        fields: index.key as IndexSpec['fields'],
        ...(index.unique === true ? { unique: true } : {}),
        ...(index.partialFilterExpression ? { partial: index.partialFilterExpression as Filter } : {}),
        state: 'ready' as const,
      }))
  }

  #guard(filter: Filter, options: UpdateOptions | undefined): DriverFilter<Doc> {
    const guarded = options?.expectedHash === undefined ? filter : { $and: [filter, { _hash: options.expectedHash }] }
    return guarded as DriverFilter<Doc>
  }

  /** A guarded write that matched nothing: a conflict when the record exists with another `_hash`. */
  async #explainMiss(filter: Filter, options: UpdateOptions | undefined): Promise<void> {
    if (options?.expectedHash === undefined) return
    const exists = await this.collection.findOne(filter as DriverFilter<Doc>, {
      session: this.session,
      projection: { _id: 1 },
    })
    if (exists) throw new ConflictError()
  }
}
