import type { StoredRecord } from '../port.js'
import { getPath, sortKey, type SortField } from '../sort-order.js'
import { compareKeys, indexEntries, isIndexed, keyedByValues, type IndexKey, type StoredIndex } from './index-keys.js'
import type { SortValues } from './top-k.js'

/** An index as the planner reads it: its definition and the id its entries are keyed by. */
type KeyedIndex = StoredIndex & { id: number }

/** A record's values of the sort's fields, as `SortValues`, from the decoded record. */
function recordValues(fields: SortField[], id: string, record: StoredRecord): SortValues {
  const values: SortValues = []
  for (const { path } of fields) {
    const [tag, key] = sortKey(path === '_id' ? id : getPath(record, path))
    values.push(tag, key)
  }
  return values
}

/**
 * Every record of an index range `[low, high)` with its values of a sort's fields: what a query of that range
 * ranks, held so that the next query of it reads neither the entries nor the records. A write of this process
 * moves its record in, out, or to its new values (`update`), so the range stays whole from one write to the next.
 */
export class KeptRange {
  readonly ids: string[] = []
  readonly values: SortValues[] = []

  constructor(
    readonly index: KeyedIndex,
    readonly low: IndexKey,
    readonly high: IndexKey,
    readonly fields: SortField[],
  ) {}

  add(id: string, values: SortValues): void {
    this.ids.push(id)
    this.values.push(values)
  }

  /** The record's entries in the range's index (none when absent or left out of a partial index). */
  entryKeys(id: string, record: StoredRecord | undefined): IndexKey[] {
    const { index } = this
    if (!record || !isIndexed(index.spec, record)) return []
    const unique = keyedByValues(index)
    return indexEntries(index.spec, record).keys.map((values) =>
      unique ? [index.id, ...values] : [index.id, ...values, id],
    )
  }

  /** The range with records `ids` as they are now (`current`, undefined when gone), whatever it held of them. */
  with(ids: ReadonlySet<string>, current: (id: string) => StoredRecord | undefined): KeptRange {
    const range = new KeptRange(this.index, this.low, this.high, this.fields)
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i] as string
      if (!ids.has(id)) range.add(id, this.values[i] as SortValues)
    }
    for (const id of ids) {
      const record = current(id)
      if (record && range.holds(id, record)) range.add(id, recordValues(this.fields, id, record))
    }
    return range
  }

  /** Whether the record has an entry of the index within the range. */
  holds(id: string, record: StoredRecord): boolean {
    return this.#within(this.entryKeys(id, record))
  }

  /**
   * Record `id` went from entries `before` to `after` in the range's index (`entryKeys`), `after` being what it
   * is now; the change in candidates held (+1, 0, -1).
   */
  update(id: string, before: IndexKey[], after: IndexKey[], record: StoredRecord | undefined): number {
    const at = this.#within(before) ? this.ids.indexOf(id) : -1
    return this.#move(at, id, this.#within(after) ? record : undefined)
  }

  /**
   * Record `id` is now `record` with entries `keys` (`entryKeys`), whatever it was: another process's write,
   * which tells the ids it changed, not their records as they were. The change in candidates held (+1, 0, -1).
   */
  follow(id: string, keys: IndexKey[], record: StoredRecord | undefined): number {
    return this.#move(this.ids.indexOf(id), id, this.#within(keys) ? record : undefined)
  }

  /** The candidate at `at` (-1: none) takes the values of `within`, the record if the range holds it now. */
  #move(at: number, id: string, within: StoredRecord | undefined): number {
    if (at >= 0 && within) {
      this.values[at] = recordValues(this.fields, id, within)
      return 0
    }
    if (at >= 0) {
      // Order within the range does not matter to the heap ranking it: the last candidate takes the place.
      const last = this.ids.length - 1
      this.ids[at] = this.ids[last] as string
      this.values[at] = this.values[last] as SortValues
      this.ids.pop()
      this.values.pop()
      return -1
    }
    if (within) {
      this.add(id, recordValues(this.fields, id, within))
      return 1
    }
    return 0
  }

  #within(keys: IndexKey[]): boolean {
    return keys.some((key) => compareKeys(key, this.low) >= 0 && compareKeys(key, this.high) < 0)
  }
}
