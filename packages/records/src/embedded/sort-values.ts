/** A record's value of one sort field, as `sortKey` gives it. */
export type SortValue = [number, number | string]
/** A candidate of an index range with its values of a sort's fields (`SortValues`, flattened). */
interface RangeCandidate {
  id: string
  values: Array<number | string>
}

/**
 * Longer string values are not kept: the capacity counts values, so it bounds memory only while each is small
 * (100,000 values of 64 characters: about 20 MB). A sort on long strings reads them again each time.
 */
const MAX_KEPT_STRING = 64

const tooLong = (value: number | string) => typeof value === 'string' && value.length > MAX_KEPT_STRING

interface CollectionValues {
  /** The collection's write stamp the values were read at (see `Engine.size`). */
  stamp: number | undefined
  /** By path, the values read so far, by `_id`. */
  paths: Map<string, Map<string, SortValue>>
  /**
   * Whole index ranges read in one go, by range and sort fields: every candidate with its values, in index order.
   * Any write of the collection drops them (which candidates a range holds may have changed).
   */
  ranges: Map<string, RangeCandidate[]>
}

/**
 * Sort values read from records' texts by the heap of an index that narrows the filter but not the sort
 * (`query-plan.ts`), kept so the next page or the next caller need not read the candidates' records again; and
 * whole ranges (every candidate of an index prefix with its values), so it need not read their index entries
 * either. `bench/micro.mjs`, 1,000 candidates per query: 336 queries per CPU-second reading every record, about
 * 1,000 with the values kept, 3,400-4,000 with the range kept.
 *
 * Every write of a collection stores a new random stamp with its size (`Engine.putRecord`). Values hold while the
 * stamp read with them is the collection's: this process's writes move them along (dropping the values of the
 * record they change, and every kept range), any other stamp (another process's write, or a write of this one
 * that was rolled back) drops the collection's values. At most `capacity` values and range candidates in all:
 * past it, every collection's values go, and no range is kept.
 */
export class SortValueCache {
  readonly #collections = new Map<number, CollectionValues>()
  #size = 0

  constructor(readonly capacity: number) {}

  /** The values of `path` in the collection as of `stamp` (those of any other stamp dropped first). */
  of(collectionId: number, stamp: number | undefined, path: string): Map<string, SortValue> {
    let collection = this.#collections.get(collectionId)
    if (!collection || collection.stamp !== stamp) {
      this.drop(collectionId)
      collection = { stamp, paths: new Map(), ranges: new Map() }
      this.#collections.set(collectionId, collection)
    }
    let values = collection.paths.get(path)
    if (!values) {
      values = new Map()
      collection.paths.set(path, values)
    }
    return values
  }

  /** Keeps a value read into `values` (from `of`), unless those were dropped meanwhile or the cache is full. */
  note(collectionId: number, path: string, values: Map<string, SortValue>, id: string, value: SortValue): void {
    if (this.#collections.get(collectionId)?.paths.get(path) !== values || tooLong(value[1])) return
    if (this.#size >= this.capacity) {
      this.clear()
      return
    }
    if (!values.has(id)) this.#size++
    values.set(id, value)
  }

  /** The candidates of a range kept at `stamp` (undefined when none are). */
  range(collectionId: number, stamp: number | undefined, key: string): readonly RangeCandidate[] | undefined {
    const collection = this.#collections.get(collectionId)
    return collection && collection.stamp === stamp ? collection.ranges.get(key) : undefined
  }

  /** Keeps a whole range read at `stamp`, unless the collection changed since or the cache is full. */
  keepRange(collectionId: number, stamp: number | undefined, key: string, candidates: RangeCandidate[]): void {
    const collection = this.#collections.get(collectionId)
    if (!collection || collection.stamp !== stamp || collection.ranges.has(key)) return
    if (this.#size + candidates.length > this.capacity) return
    if (candidates.some((candidate) => candidate.values.some(tooLong))) return
    this.#size += candidates.length
    collection.ranges.set(key, candidates)
  }

  /** A write of record `id` moved the collection's stamp from `before` to `after`. */
  changed(collectionId: number, before: number | undefined, after: number, ids: string[]): void {
    const collection = this.#collections.get(collectionId)
    if (!collection) return
    if (collection.stamp !== before) {
      this.drop(collectionId)
      return
    }
    collection.stamp = after
    for (const candidates of collection.ranges.values()) this.#size -= candidates.length
    collection.ranges.clear()
    for (const values of collection.paths.values()) {
      for (const id of ids) if (values.delete(id)) this.#size--
    }
  }

  drop(collectionId: number): void {
    const collection = this.#collections.get(collectionId)
    if (!collection) return
    for (const values of collection.paths.values()) this.#size -= values.size
    for (const candidates of collection.ranges.values()) this.#size -= candidates.length
    this.#collections.delete(collectionId)
  }

  clear(): void {
    this.#collections.clear()
    this.#size = 0
  }
}
