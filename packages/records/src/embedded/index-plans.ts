import { TypeTag, type SortField } from '../sort-order.js'
import type { LiveIndex } from './engine.js'
import { idBounds, rangeBounds, type Bound, type FilterTerms, type Scalar } from './filter-terms.js'
import { KEY_END, keyedByValues, partialMatcher, valuesKey, type IndexKey } from './index-keys.js'

/** What an index can do for a query: the keys to read for its filter, and whether they come in its sort's order. */
export interface IndexPlan {
  index: LiveIndex
  /** The equality prefix's values (without the index id). */
  prefix: IndexKey
  prefixFields: string[]
  /** The keys to read, `[low, high)`: the prefix's, or a range on the field after it. */
  bounds: [IndexKey, IndexKey]
  /** Bounds on the field after the prefix narrow the candidates. */
  ranged: boolean
  /** Every term of the filter is answered by the bounds: the candidates are the matches (no re-check). */
  exact: boolean
  /** The index order is the requested order: page straight off the index. */
  ordered: boolean
  reverse: boolean
  /** A record may have several entries in the range (an array along an indexed path past the prefix). */
  dedupe: boolean
}

/**
 * A partial index serves a query only when the query's equalities alone imply the partial filter (an
 * equality on a value implies `$exists: true`), or its range implies `{ [ranged]: { $exists: true } }` (a range
 * matches only values of its type). A `null` equality also matches missing fields, which a partial index may
 * have left out.
 */
function impliesPartial(index: LiveIndex, eq: Map<string, Scalar>, ranged?: string): boolean {
  const { spec } = index
  const { partial } = spec
  if (!partial) return true
  const exists = (path: string): boolean =>
    path === ranged && JSON.stringify(partial[path]) === JSON.stringify({ $exists: true })
  if (
    Object.keys(partial).some(
      (path) => path.startsWith('$') || ((!eq.has(path) || eq.get(path) === null) && !exists(path)),
    )
  ) {
    return false
  }
  const probe: Record<string, unknown> = {}
  for (const [path, value] of eq) probe[path] = value
  if (ranged !== undefined) probe[ranged] = true
  return partialMatcher(spec).test(probe)
}

/** The indexes queries may use: those built. */
export function usable(indexes: LiveIndex[]): LiveIndex[] {
  return indexes.some((index) => index.building) ? indexes.filter((index) => !index.building) : indexes
}

/** How much a plan narrows the candidates: its equality prefix, then a range after it. */
export const narrowness = (plan: IndexPlan): number => 2 * plan.prefixFields.length + (plan.ranged ? 1 : 0)

/** The plan that narrows most among `plans`; ties keep the first index. */
export function narrowest(plans: IndexPlan[]): IndexPlan | undefined {
  let best: IndexPlan | undefined
  for (const plan of plans) if (!best || narrowness(plan) > narrowness(best)) best = plan
  return best
}

/** A plan on each index that narrows the filter's candidates or whose order serves the sort. */
export function planIndexes(indexes: LiveIndex[], terms: FilterTerms, sort: SortField[]): IndexPlan[] {
  const { equalities: eq, ranges, paths } = terms
  const plans: IndexPlan[] = []
  for (const index of indexes) {
    // Keys cannot mirror an opaque index's arrays (arrays of arrays, numeric segments into arrays).
    if (index.opaque === true) continue
    // On an array path, an index key is one element: equality on a scalar finds the records holding it, but
    // `null` also matches missing fields and sorting compares whole arrays, so neither can use those keys.
    const multikeyPaths = new Set(index.multikeyPaths ?? [])
    const fields = Object.keys(index.spec.fields)
    const prefixFields: string[] = []
    for (const path of fields) {
      if (!eq.has(path) || (eq.get(path) === null && multikeyPaths.has(path))) break
      prefixFields.push(path)
    }
    const rangeField = fields[prefixFields.length]
    let term = rangeField === undefined ? undefined : ranges.get(rangeField)
    if (!impliesPartial(index, eq, term && rangeField)) continue
    // On an array path each bound may hold for another element (`[5, 25]` matches `{$gt: 10, $lt: 20}`):
    // one bound finds every match.
    if (term?.low && term.high && multikeyPaths.has(rangeField as string)) term = { low: term.low, exact: false }
    // Past an equality on every field, a non-unique index's keys end with `_id`: string bounds on it narrow them.
    const idTerm = rangeField === undefined && !keyedByValues(index) ? ranges.get('_id') : undefined
    const ids = idTerm && ((idTerm.low ?? idTerm.high) as Bound).key[0] === TypeTag.string ? idTerm : undefined
    // Past the equality prefix, index keys run in the order of the remaining fields, then `_id`.
    const rest = [...fields.slice(prefixFields.length), '_id']
    const wanted = sort.filter(({ path }) => !prefixFields.includes(path))
    const direction = wanted[0]?.direction ?? 1
    const ordered =
      wanted.length === rest.length &&
      wanted.every(({ path, direction: d }, i) => path === rest[i] && d === direction) &&
      sort.every(({ path }) => !multikeyPaths.has(path))
    if (prefixFields.length === 0 && !term && !ordered) continue
    const prefix = valuesKey(prefixFields.map((path) => eq.get(path)))
    const start = [index.id, ...prefix]
    const plan: IndexPlan = {
      index,
      prefix,
      prefixFields,
      bounds: term ? rangeBounds(start, term) : ids ? idBounds(start, ids) : [start, [...start, KEY_END]],
      ranged: term !== undefined || ids !== undefined,
      exact: paths.every(
        (path) =>
          prefixFields.includes(path) ||
          (path === rangeField && term?.exact === true) ||
          (path === '_id' && ids?.exact === true),
      ),
      ordered,
      reverse: direction === -1,
      dedupe: fields.some((path) => multikeyPaths.has(path) && !prefixFields.includes(path)),
    }
    plans.push(plan)
  }
  return plans
}
