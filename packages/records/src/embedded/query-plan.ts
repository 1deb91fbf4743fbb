import { Query } from 'mingo'
import { pageInMemory, type PageOptions } from '../in-memory-query.js'
import type { Filter, StoredRecord } from '../port.js'
import type { SortField } from '../sort-order.js'
import type { Engine } from './engine.js'
import { indexValues, isIndexed, KEY_END, valuesKey, type IndexKey, type StoredIndex } from './index-keys.js'

type Scalar = string | number | boolean | null

/** Top-level `field: scalar` / `field: {$eq: scalar}` terms: the part of a filter an index can seek on. */
function equalities(filter: Filter): Map<string, Scalar> {
  const terms = new Map<string, Scalar>()
  for (const [path, condition] of Object.entries(filter)) {
    if (path.startsWith('$')) continue
    const value = condition !== null && typeof condition === 'object' && !Array.isArray(condition) && Object.keys(condition).length === 1 && '$eq' in condition
      ? (condition as { $eq: unknown }).$eq
      : condition
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) terms.set(path, value as Scalar)
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
}

/** A partial index serves a query only when the query's equalities alone imply the partial filter. */
function impliesPartial(index: StoredIndex, eq: Map<string, Scalar>): boolean {
  const { partial } = index.spec
  if (!partial) return true
  if (Object.keys(partial).some((path) => path.startsWith('$') || !eq.has(path))) return false
  const probe: Record<string, unknown> = {}
  for (const [path, value] of eq) probe[path] = value
  return new Query(partial).test(probe)
}

function planIndex(indexes: StoredIndex[], filter: Filter, sort: SortField[]): IndexPlan | undefined {
  const eq = equalities(filter)
  let best: IndexPlan | undefined
  for (const index of indexes) {
    if (index.multikey || !impliesPartial(index, eq)) continue
    const fields = Object.keys(index.spec.fields)
    const prefixFields: string[] = []
    for (const path of fields) {
      if (!eq.has(path)) break
      prefixFields.push(path)
    }
    // Past the equality prefix, index keys run in the order of the remaining fields, then `_id`.
    const rest = [...fields.slice(prefixFields.length), '_id']
    const wanted = sort.filter(({ path }) => !prefixFields.includes(path))
    const direction = wanted[0]?.direction ?? 1
    const ordered = wanted.length === rest.length &&
      wanted.every(({ path, direction: d }, i) => path === rest[i] && d === direction)
    if (prefixFields.length === 0 && !ordered) continue
    const plan: IndexPlan = {
      index,
      prefix: valuesKey(prefixFields.map((path) => eq.get(path))),
      prefixFields,
      ordered,
      reverse: direction === -1
    }
    const score = (ordered ? 1000 : 0) + prefixFields.length
    const bestScore = best ? (best.ordered ? 1000 : 0) + best.prefixFields.length : -1
    if (score > bestScore) best = plan
  }
  return best
}

/**
 * Answers a find from the cheapest source: a primary-key range under the `_id` order, an index whose
 * order is the requested one (about `skip + limit` entries read), an index narrowing the candidates by an
 * equality prefix, or else a scan. Every candidate is re-checked against the whole filter.
 */
export function findRecords(engine: Engine, collection: string, filter: Filter, options: PageOptions): StoredRecord[] {
  const records = engine.records(collection)
  const { sort, after } = options
  const match = new Query(filter)
  const skip = options.skip ?? 0
  const wanted = options.limit === undefined ? Infinity : skip + options.limit

  const take = (candidates: Iterable<StoredRecord>): StoredRecord[] => {
    const page: StoredRecord[] = []
    for (const record of candidates) {
      if (page.length >= wanted) break
      if (match.test(record)) page.push(record)
    }
    return page.slice(skip)
  }

  if (typeof filter._id === 'string') {
    engine.stats.reads++
    const record = records.get(filter._id)
    return pageInMemory(record ? [record] : [], filter, options)
  }

  if (sort.length === 1 && sort[0]?.path === '_id') {
    const reverse = sort[0].direction === -1
    return take(function * () {
      for (const { key, value } of records.getRange({ start: after?._id, reverse })) {
        engine.stats.reads++
        if (key !== after?._id) yield value
      }
    }())
  }

  const plan = planIndex(engine.indexes(collection), filter, sort)
  if (!plan) {
    return pageInMemory(function * () {
      for (const { value } of records.getRange()) {
        engine.stats.reads++
        yield value
      }
    }(), filter, options)
  }

  const db = engine.index(collection, plan.index.spec.name)
  const load = function * (start: IndexKey, end: IndexKey, reverse: boolean, skipKey?: string): Generator<StoredRecord> {
    for (const key of db.getKeys({ start, end, reverse })) {
      engine.stats.reads += 2
      const id = key.at(-1) as string
      if (id === skipKey) continue
      const record = records.get(id)
      if (record) yield record
    }
  }
  const low = plan.prefix
  const high = [...plan.prefix, KEY_END]
  if (!plan.ordered) return pageInMemory(load(low, high, false), filter, options)

  const { spec } = plan.index
  const afterInRange = after !== undefined && isIndexed(spec, after) &&
    JSON.stringify(indexValues(spec, after).slice(0, low.length)) === JSON.stringify(low)
  if (after && !afterInRange) return pageInMemory(load(low, high, false), filter, options)
  const from = after ? [...indexValues(spec, after), after._id] : undefined
  return plan.reverse
    ? take(load(from ?? high, low, true, after?._id))
    : take(load(from ?? low, high, false, after?._id))
}
