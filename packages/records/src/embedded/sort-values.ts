/** A record's value of one sort field, as `sortKey` gives it. */
export type SortValue = [number, number | string]

interface CollectionValues {
  /** The collection's write stamp the values were read at (see `Engine.size`). */
  stamp: number | undefined
  /** By path, the values read so far, by `_id`. */
  paths: Map<string, Map<string, SortValue>>
}

/**
 * Sort values read from records' texts by the heap of an index that narrows the filter but not the sort
 * (`query-plan.ts`), kept so the next page or the next caller reads each candidate's index entry only, not its
 * record: a thousand candidates cost about a tenth as much.
 *
 * Every write of a collection stores a new random stamp with its size (`Engine.putRecord`). Values hold while the
 * stamp read with them is the collection's: this process's writes move them along (dropping the values of the
 * record they change), any other stamp (another process's write, or a write of this one that was rolled back)
 * drops the collection's values. At most `capacity` values in all: past it, every collection's values go.
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
      collection = { stamp, paths: new Map() }
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
    if (this.#collections.get(collectionId)?.paths.get(path) !== values) return
    if (this.#size >= this.capacity) {
      this.clear()
      return
    }
    if (!values.has(id)) this.#size++
    values.set(id, value)
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
    for (const values of collection.paths.values()) {
      for (const id of ids) if (values.delete(id)) this.#size--
    }
  }

  drop(collectionId: number): void {
    const collection = this.#collections.get(collectionId)
    if (!collection) return
    for (const values of collection.paths.values()) this.#size -= values.size
    this.#collections.delete(collectionId)
  }

  clear(): void {
    this.#collections.clear()
    this.#size = 0
  }
}
