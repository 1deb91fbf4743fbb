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

  /** Whether the record has an entry of the index within the range. */
  holds(id: string, record: StoredRecord): boolean {
    const { index } = this
    if (!isIndexed(index.spec, record)) return false
    const unique = keyedByValues(index)
    return indexEntries(index.spec, record).keys.some((values) => {
      const key = unique ? [index.id, ...values] : [index.id, ...values, id]
      return compareKeys(key, this.low) >= 0 && compareKeys(key, this.high) < 0
    })
  }

  /** Record `id` went from `before` to `after` (either absent); the change in candidates held (+1, 0, -1). */
  update(id: string, before: StoredRecord | undefined, after: StoredRecord | undefined): number {
    const at = before && this.holds(id, before) ? this.ids.indexOf(id) : -1
    const into = after !== undefined && this.holds(id, after)
    if (at >= 0 && into) {
      this.values[at] = recordValues(this.fields, id, after)
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
    if (into) {
      this.add(id, recordValues(this.fields, id, after))
      return 1
    }
    return 0
  }
}
