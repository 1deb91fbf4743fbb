import type { Key, RangeOptions } from 'lmdb'
import { TypeTag } from '../sort-order.js'
import { compareKeys, keyedByValues, type IndexKey } from './index-keys.js'
import { idOfKey, recordKey, recordPrefix, type Engine, type LiveIndex } from './engine.js'
import { Row } from './row.js'
import type { Bound, RangeTerm } from './filter-terms.js'
import type { IndexPlan } from './index-plans.js'
import { PAUSE, range, sameKey, type Pacer } from './steps.js'

/**
 * The index's entries in a key range, in key order, each with the `_id` of its record; with `covered`, and what
 * a non-unique entry carries of its record (`covered-fields.ts`; undefined in a unique index's).
 */
export function entries(
  engine: Engine,
  index: LiveIndex,
  options: RangeOptions,
  pacer: Pacer,
  covered = false,
): Generator<{ key: IndexKey; id: string; covered?: unknown } | typeof PAUSE> {
  const unique = keyedByValues(index)
  return range(engine.entries, options, pacer, !unique && !covered, (key, value) =>
    unique ? { key, id: value as string } : { key, id: key.at(-1) as string, covered: value },
  )
}

/** The average size of the collection's records, to estimate what a number of them would hold. */
export function averageSize(engine: Engine, collectionId: number): number {
  const { count, bytes } = engine.size(collectionId)
  return count === 0 ? 0 : bytes / count
}

/**
 * Reads keys of `[low, high)` down from `start` (`high` itself when `fromHigh`, else a key within) to `low`. lmdb's
 * reverse range includes its start and leaves out its end, the other way round: without these flags a bound
 * equal to a key (an `_id`, a unique index's values) would be read at `high` and passed over at `low`.
 */
function downFrom(start: Key, low: Key, fromHigh: boolean): RangeOptions {
  return { start, end: low, reverse: true, inclusiveEnd: true, exclusiveStart: fromHigh }
}

/** Records' keys `[low, high)`: a collection's, or an `_id` range within it. */
export interface IdRange {
  low: string
  high: string
}

/**
 * The records' keys of an `_id` range with string bounds (every stored `_id` is a string, keyed in UTF-8 order,
 * which `boundKey` keeps to); undefined for bounds of another type, which fall back to the whole collection.
 * `\0` after an id makes the next key: a `$gt` start and a `$lte` end pass over the bound itself.
 */
export function idRange(collectionId: number, term: RangeTerm | undefined): IdRange | undefined {
  if (!term || ((term.low ?? term.high) as Bound).key[0] !== TypeTag.string) return undefined
  const key = (bound: Bound, next: boolean) => recordKey(collectionId, `${bound.key[1]}${next ? '\0' : ''}`)
  const { low, high } = term
  return {
    low: low ? key(low, !low.inclusive) : recordPrefix(collectionId),
    high: high ? key(high, high.inclusive) : recordPrefix(collectionId + 1),
  }
}

/** The collection's records (or those of `ids`) in `_id` order, from past `after` (exclusive). */
export function scan(
  engine: Engine,
  collectionId: number,
  reverse: boolean,
  after: string | undefined,
  pacer: Pacer,
  ids?: IdRange,
): Generator<Row | typeof PAUSE> {
  // No `_id` is empty, so no record's key is a bare prefix: either bound may be one.
  const low = ids?.low ?? recordPrefix(collectionId)
  const high = ids?.high ?? recordPrefix(collectionId + 1)
  let from = reverse ? high : low
  // Past `after` or from the range's near end, whichever comes later (an empty range reads nothing).
  if (after !== undefined) {
    const at = recordKey(collectionId, after)
    if (reverse ? compareKeys([at], [high]) < 0 : compareKeys([at], [low]) > 0) from = at
  }
  const options = reverse ? downFrom(from, low, from === high) : { start: from, end: high }
  return range(engine.records, options, pacer, false, (key, value) => {
    engine.stats.reads++
    const id = idOfKey(key)
    return id === after ? undefined : new Row(id, value as string)
  })
}

/**
 * Records in index order from `start`. Past `afterId`: a unique index's key holds no `_id`, so an entry of
 * another record at `start` itself (with `after`'s values, `after` not being in a partial index) is past
 * `after` only when its `_id` is. One generator over the range, each record read as its entry is (no entry
 * object, no generator per level).
 */
export function load(
  engine: Engine,
  collectionId: number,
  plan: IndexPlan,
  [start, end]: [IndexKey, IndexKey],
  reverse: boolean,
  pacer: Pacer,
  afterId?: string,
): Generator<Row | typeof PAUSE> {
  const seen = plan.dedupe ? new Set<string>() : undefined
  const unique = keyedByValues(plan.index)
  let first = afterId !== undefined
  // Reversed from past `after`, `start` is `after`'s own key; else the range's end.
  const options = reverse ? downFrom(start, end, afterId === undefined) : { start, end }
  return range(engine.entries, options, pacer, !unique, (key, value) => {
    const id = unique ? (value as string) : (key[key.length - 1] as string)
    engine.stats.reads++
    if (afterId !== undefined) {
      const atStart = first && sameKey(key, start)
      first = false
      if (id === afterId || (atStart && (reverse ? id > afterId : id < afterId))) return undefined
    }
    if (seen) {
      if (seen.has(id)) return undefined
      seen.add(id)
    }
    return read(engine, collectionId, id)
  })
}

export function read(engine: Engine, collectionId: number, id: string): Row | undefined {
  engine.stats.reads++
  const json = engine.records.get(recordKey(collectionId, id))
  return json === undefined ? undefined : new Row(id, json)
}
