import { pageInMemory, type PageOptions } from '../in-memory-query.js'
import { compileFilter, type Matcher } from '../match.js'
import type { Filter, StoredRecord } from '../port.js'
import { getPath, sortKey, type SortField } from '../sort-order.js'
import type { Engine } from './engine.js'
import type { RangeOptions } from 'lmdb'
import { KEY_END, keyedByValues, partialMatcher, valuesKey, type IndexKey, type StoredIndex } from './index-keys.js'

type Scalar = string | number | boolean | null

/**
 * Top-level `field: scalar` / `field: {$eq: scalar}` terms: the part of a filter an index can seek on. Only
 * values whose index key is exact: no NaN or infinities (NaN is keyed as -Infinity).
 */
function equalities(filter: Filter): Map<string, Scalar> {
  const terms = new Map<string, Scalar>()
  for (const [path, condition] of Object.entries(filter)) {
    if (path.startsWith('$')) continue
    const value =
      condition !== null &&
      typeof condition === 'object' &&
      !Array.isArray(condition) &&
      Object.keys(condition).length === 1 &&
      '$eq' in condition
        ? (condition as { $eq: unknown }).$eq
        : condition
    if (
      value === null ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value))
    ) {
      terms.set(path, value)
    }
  }
  return terms
}

interface IndexPlan {
  index: StoredIndex
  prefix: IndexKey
  prefixFields: string[]
  /** The index order is the requested order: page straight off the index. */
  ordered: boolean
  reverse: boolean
  /** A record may have several entries in the range (an array along an indexed path past the prefix). */
  dedupe: boolean
}

/**
 * A partial index serves a query only when the query's equalities alone imply the partial filter (an
 * equality on a value implies `$exists: true`). A `null` equality also matches missing fields, which a
 * partial index may have left out.
 */
function impliesPartial(index: StoredIndex, eq: Map<string, Scalar>): boolean {
  const { spec } = index
  const { partial } = spec
  if (!partial) return true
  if (Object.keys(partial).some((path) => path.startsWith('$') || !eq.has(path) || eq.get(path) === null)) return false
  const probe: Record<string, unknown> = {}
  for (const [path, value] of eq) probe[path] = value
  return partialMatcher(spec).test(probe)
}

/** The index's entries in a key range, in key order, each with the `_id` of its record. */
function* entries(
  engine: Engine,
  collection: string,
  index: StoredIndex,
  range: RangeOptions,
): Generator<{ key: IndexKey; id: string }> {
  const db = engine.index(collection, index.spec.name)
  if (keyedByValues(index)) {
    for (const { key, value } of db.getRange(range)) yield { key, id: value as string }
  } else {
    for (const key of db.getKeys(range)) yield { key, id: key.at(-1) as string }
  }
}

const sameKey = (a: IndexKey, b: IndexKey) => a.length === b.length && a.every((part, i) => part === b[i])

/** A record as read: its stored JSON text, decoded only when something needs the record itself. */
export class Row {
  #record: StoredRecord | undefined
  constructor(
    readonly id: string,
    readonly json: string,
  ) {}

  /** Decoded on first use; each row decodes its own copy, which the caller may change. */
  get record(): StoredRecord {
    return (this.#record ??= JSON.parse(this.json) as StoredRecord)
  }
}

const recordOf = (row: Row) => row.record

/** `PageOptions` with the record to page after as read: decoded only where its values are needed. */
export interface RowPageOptions extends Omit<PageOptions, 'after'> {
  after?: Row
}

function planIndex(indexes: StoredIndex[], filter: Filter, sort: SortField[]): IndexPlan | undefined {
  const eq = equalities(filter)
  let best: IndexPlan | undefined
  let bestScore = -1
  for (const index of indexes) {
    // Keys cannot mirror an opaque index's arrays (arrays of arrays, numeric segments into arrays).
    if (index.opaque === true || !impliesPartial(index, eq)) continue
    // On an array path, an index key is one element: equality on a scalar finds the records holding it, but
    // `null` also matches missing fields and sorting compares whole arrays, so neither can use those keys.
    const multikeyPaths = new Set(index.multikeyPaths ?? [])
    const fields = Object.keys(index.spec.fields)
    const prefixFields: string[] = []
    for (const path of fields) {
      if (!eq.has(path) || (eq.get(path) === null && multikeyPaths.has(path))) break
      prefixFields.push(path)
    }
    // Past the equality prefix, index keys run in the order of the remaining fields, then `_id`.
    const rest = [...fields.slice(prefixFields.length), '_id']
    const wanted = sort.filter(({ path }) => !prefixFields.includes(path))
    const direction = wanted[0]?.direction ?? 1
    const ordered =
      wanted.length === rest.length &&
      wanted.every(({ path, direction: d }, i) => path === rest[i] && d === direction) &&
      sort.every(({ path }) => !multikeyPaths.has(path))
    if (prefixFields.length === 0 && !ordered) continue
    const plan: IndexPlan = {
      index,
      prefix: valuesKey(prefixFields.map((path) => eq.get(path))),
      prefixFields,
      ordered,
      reverse: direction === -1,
      dedupe: fields.some((path) => multikeyPaths.has(path) && !prefixFields.includes(path)),
    }
    const score = (ordered ? 1000 : 0) + prefixFields.length
    if (score > bestScore) {
      best = plan
      bestScore = score
    }
  }
  return best
}

const ID_ORDER: SortField[] = [{ path: '_id', direction: 1 }]

/** Whether every term of the filter is an equality the plan's index prefix answers exactly. */
function answeredByIndex(filter: Filter, plan: IndexPlan): boolean {
  const paths = Object.keys(filter)
  return paths.length === plan.prefixFields.length && paths.every((path) => plan.prefixFields.includes(path))
}

/**
 * Counts matching records: `{}` from the database's entry count (one read), a filter of equalities an index prefix answers from
 * the index entries alone (no record is read), anything else by matching records.
 */
export function countRecords(engine: Engine, collection: string, filter: Filter): number {
  if (Object.keys(filter).length === 0) {
    engine.stats.reads++
    return engine.recordCount(collection)
  }
  const plan = planIndex(engine.indexes(collection), filter, ID_ORDER)
  if (!plan || !answeredByIndex(filter, plan)) return findRows(engine, collection, filter, { sort: ID_ORDER }).length
  const range = { start: plan.prefix, end: [...plan.prefix, KEY_END] }
  if (!plan.dedupe) {
    const count = engine.index(collection, plan.index.spec.name).getKeysCount(range)
    engine.stats.reads += count
    return count
  }
  const ids = new Set<string>()
  for (const { id } of entries(engine, collection, plan.index, range)) {
    engine.stats.reads++
    ids.add(id)
  }
  return ids.size
}

/**
 * Answers a find from the cheapest source: an index whose order is the requested one (about `skip + limit`
 * entries read), a primary-key range under the `_id` order, an index narrowing the candidates by an equality
 * prefix, or else a scan. Every candidate is re-checked against the whole filter, unless the index answers it.
 */
export function findRows(engine: Engine, collection: string, filter: Filter, options: RowPageOptions): Row[] {
  const records = engine.records(collection)
  const { sort, after } = options
  /** For the pages built in memory, which compare `after`'s values; the `_id` order needs only its `_id`. */
  const inMemory = (): PageOptions => ({ ...options, after: after?.record })
  let match: Matcher | undefined
  const skip = options.skip ?? 0
  const wanted = options.limit === undefined ? Infinity : skip + options.limit

  const matchesAll = Object.keys(filter).length === 0
  /** Pages off candidates already in order; `exact` when the candidates are the matches (no re-check, no decoding). */
  const take = (candidates: Iterable<Row>, exact = matchesAll): Row[] => {
    const page: Row[] = []
    for (const row of candidates) {
      if (page.length >= wanted) break
      if (exact || (match ??= compileFilter(filter)).test(row.record)) page.push(row)
    }
    return page.slice(skip)
  }
  const read = (id: string): Row | undefined => {
    engine.stats.reads++
    const json = records.get(id)
    return json === undefined ? undefined : new Row(id, json)
  }

  if (typeof filter._id === 'string') {
    const row = read(filter._id)
    if (!after && skip === 0 && Object.keys(filter).length === 1) return row && wanted > 0 ? [row] : []
    // The read answered the `_id` term. Matching the rest alone compiles one filter for all ids, not one per id.
    const rest: Filter = { ...filter }
    delete rest._id
    return pageInMemory(row ? [row] : [], rest, inMemory(), recordOf)
  }

  const plan = planIndex(engine.indexes(collection), filter, sort)
  const idOrder = sort.length === 1 && sort[0]?.path === '_id'
  // Under the `_id` order, a page off the primary key reads about `skip + limit` records too; an unordered
  // index plan would read every candidate, so it only pays when every match is wanted anyway.
  if (idOrder && !(plan && (plan.ordered || options.limit === undefined))) {
    const reverse = sort[0]?.direction === -1
    return take(
      (function* () {
        for (const { key, value } of records.getRange(after ? { start: after.id, reverse } : { reverse })) {
          engine.stats.reads++
          if (key !== after?.id) yield new Row(key, value)
        }
      })(),
    )
  }

  if (!plan) {
    return pageInMemory(
      (function* () {
        for (const { key, value } of records.getRange()) {
          engine.stats.reads++
          yield new Row(key, value)
        }
      })(),
      filter,
      inMemory(),
      recordOf,
    )
  }

  /**
   * Records in index order from `start`. Past `afterId`: a unique index's key holds no `_id`, so an entry of
   * another record at `start` itself (with `after`'s values, `after` not being in a partial index) is past
   * `after` only when its `_id` is.
   */
  const load = function* (start: IndexKey, end: IndexKey, reverse: boolean, afterId?: string): Generator<Row> {
    const seen = plan.dedupe ? new Set<string>() : undefined
    let first = true
    for (const { key, id } of entries(engine, collection, plan.index, { start, end, reverse })) {
      engine.stats.reads++
      const atStart = first && afterId !== undefined && sameKey(key, start)
      first = false
      if (afterId !== undefined && (id === afterId || (atStart && (reverse ? id > afterId : id < afterId)))) continue
      if (seen) {
        if (seen.has(id)) continue
        seen.add(id)
      }
      const row = read(id)
      if (row) yield row
    }
  }
  const low = plan.prefix
  const high = [...plan.prefix, KEY_END]
  if (!plan.ordered) return pageInMemory(load(low, high, false), filter, inMemory(), recordOf)
  // Entries and records are read in one snapshot, so when the prefix answers the filter every candidate matches.
  const exact = answeredByIndex(filter, plan)
  // Equalities on every field of a unique index name at most one record (a lookup by `externalId`, by name):
  // one read of the entry, without the generators and page bookkeeping of a scan.
  if (
    exact &&
    keyedByValues(plan.index) &&
    plan.prefixFields.length === Object.keys(plan.index.spec.fields).length &&
    !after
  ) {
    if (skip > 0 || wanted === 0) return []
    engine.stats.reads++
    const id = engine.index(collection, plan.index.spec.name).get(low)
    const row = typeof id === 'string' ? read(id) : undefined
    return row ? [row] : []
  }
  if (!after) return plan.reverse ? take(load(high, low, true), exact) : take(load(low, high, false), exact)

  // Matches tie on the prefix fields, so `after` sits in the range when it holds the filter's values on
  // those the sort names; its place there is given by its values on the remaining fields, then `_id`.
  const fields = Object.keys(plan.index.spec.fields)
  const sorted = new Set(sort.map(({ path }) => path))
  const afterRecord = after.record
  const afterInRange = plan.prefixFields.every(
    (path, i) =>
      !sorted.has(path) ||
      JSON.stringify(sortKey(getPath(afterRecord, path))) === JSON.stringify(low.slice(2 * i, 2 * i + 2)),
  )
  if (!afterInRange) return pageInMemory(load(low, high, false), filter, inMemory(), recordOf)
  const values = [
    ...low,
    ...valuesKey(fields.slice(plan.prefixFields.length).map((path) => getPath(afterRecord, path))),
  ]
  const from = keyedByValues(plan.index) ? values : [...values, after.id]
  return plan.reverse ? take(load(from, low, true, after.id), exact) : take(load(from, high, false, after.id), exact)
}
