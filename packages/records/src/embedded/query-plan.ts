import type { Key, RangeOptions } from 'lmdb'
import { QueryTooLargeError } from '../errors.js'
import { sortInMemory, type PageOptions } from '../in-memory-query.js'
import { compileFilter, type Matcher } from '../match.js'
import type { Filter } from '../port.js'
import { getPath, sortKey, TypeTag, type SortField } from '../sort-order.js'
import { idOfKey, recordKey, recordPrefix, type Engine, type LiveIndex } from './engine.js'
import { compareKeys, KEY_END, keyedByValues, partialMatcher, valuesKey, type IndexKey } from './index-keys.js'
import { pathInText } from './json-fields.js'
import { KeptRange } from './kept-range.js'
import { Row } from './row.js'
import { TopK, valuesOrder, type SortValues } from './top-k.js'
import { spent, turn } from './long-work.js'

type Scalar = string | number | boolean | null

/**
 * A plan runs as a generator that yields `PAUSE` between chunks of reads. Run asynchronously (`runAsync`), each
 * pause gives the event loop a turn, so a long scan interleaves with other requests; run inside a write
 * (`runSync`), pauses are passed over. No lmdb cursor stays open across a pause: a range resumes after its last key.
 */
const PAUSE = Symbol('pause')
type Steps<R> = Generator<typeof PAUSE, R>

/** A scan pauses once it has held the event loop this long (checked every `CHECK_EVERY` reads). */
const SLICE_MS = 2
const CHECK_EVERY = 64

/**
 * Entries the heap of an index range reads before its first pause (see `rankedEntries`): bounded work, each
 * entry at most one record read, so a few ms at most, run in one go like a page. Counted in reads, not time: on
 * a busy machine a few hundred candidates can take past one slice and then wait in the long-work gate (the
 * bench's filter + sort on 400 candidates, 50 callers: p99 250 ms with the time slice, 160 ms without it).
 */
const BOUNDED_READS = 4096

/**
 * What reading an index entry costs against reading and matching a record, to choose between an index's
 * candidates and a walk in the sort's order (see `findSteps`). Measured on the bench's store (records of about
 * 300 bytes): an entry's key read alone 0.4 µs of CPU, a candidate read and matched 7 µs; 0.1 leaves room for
 * the heap's own work per entry.
 */
const ENTRY_COST = 0.1

/** Decides when a plan pauses; never, for a plan run inside a write. */
export class Pacer {
  #reads = 0
  #unpaused = 0
  #since = performance.now()
  constructor(readonly pauses: boolean) {}

  /** The next `reads` reads run without a pause (counted from the plan's start). */
  allow(reads: number): void {
    this.#unpaused = reads
  }

  due(): boolean {
    if (!this.pauses || ++this.#reads % CHECK_EVERY !== 0 || this.#reads <= this.#unpaused) return false
    const now = performance.now()
    if (now - this.#since < SLICE_MS) return false
    return true
  }

  resumed(): void {
    this.#since = performance.now()
  }
}

export function runSync<R>(steps: Steps<R>): R {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * Runs a plan, giving the event loop a turn at each pause; refuses to go on once the store is closing. A plan
 * that ends before its first pause (every page read off an index) is answered at once, without a promise.
 */
export function runAsync<R>(engine: Engine, pacer: Pacer, steps: Steps<R>): R | Promise<R> {
  const step = steps.next()
  return step.done ? step.value : resume(engine, pacer, steps)
}

async function resume<R>(engine: Engine, pacer: Pacer, steps: Steps<R>): Promise<R> {
  for (;;) {
    await turn()
    try {
      engine.assertOpen()
    } catch (error) {
      steps.return(undefined as R)
      throw error
    }
    pacer.resumed()
    const started = performance.now()
    const step = steps.next()
    spent(performance.now() - started)
    if (step.done) return step.value
  }
}

/** Keys as lmdb compares them: strings (records), or arrays of parts (index entries). */
const sameKey = (a: Key, b: Key): boolean =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((part, i) => part === b[i]))

/**
 * A key range of `db` in chunks, each entry through `map` (undefined: passed over): at a pause the cursor is
 * closed, and the range resumes at its last key. One generator, so a short page pays for one level of them.
 */
function* range<K extends Key, V, T>(
  db: { getRange(options: RangeOptions): Iterable<{ key: K; value: V }>; getKeys(options: RangeOptions): Iterable<K> },
  options: RangeOptions,
  pacer: Pacer,
  keysOnly: boolean,
  map: (key: K, value: V | undefined) => T | undefined,
): Generator<T | typeof PAUSE> {
  let last: K | undefined
  for (;;) {
    let paused = false
    // A resumed range starts at the last key read: passed over once.
    let skip = last
    const from = last === undefined ? options : { ...options, start: last }
    for (const entry of keysOnly ? db.getKeys(from) : db.getRange(from)) {
      const key = keysOnly ? (entry as K) : (entry as { key: K }).key
      if (skip !== undefined) {
        const again = sameKey(key, skip)
        skip = undefined
        if (again) continue
      }
      last = key
      const item = map(key, keysOnly ? undefined : (entry as { value: V }).value)
      if (item !== undefined) yield item
      if (pacer.due()) {
        paused = true
        break
      }
    }
    if (!paused) return
    yield PAUSE
  }
}

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

/** One side of a range: the bound's `[tag, value]` as keyed. */
interface Bound {
  key: [number, number | string]
  inclusive: boolean
}

/** A top-level `field: {$gt.., $lt..}` term: the bounds an index can seek on. */
interface RangeTerm {
  low?: Bound
  high?: Bound
  /** The term is these bounds and nothing else: the index range holds exactly its matches. */
  exact: boolean
}

const LOWER = new Set(['$gt', '$gte'])
const UPPER = new Set(['$lt', '$lte'])

/**
 * A bound whose key orders values as the comparison does. Mongo's `$lt`/`$gt` compare within one type (a number
 * bound matches numbers only, a string one strings only), as the keys' `[tag, value]` ranges do. Strings are
 * keyed in UTF-8 order (Mongo's); mingo compares UTF-16 units, which agree with it against a bound without a
 * unit from U+D800 up, so only such strings bound a range. No NaN or infinities (NaN is keyed as -Infinity).
 */
function boundKey(value: unknown): Bound['key'] | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return sortKey(value)
  if (typeof value === 'string' && !/[\ud800-\uffff]/.test(value)) return sortKey(value)
  return undefined
}

/** The filter's range terms by path; a term with other operators beside its bounds still narrows, inexactly. */
function rangeTerms(filter: Filter): Map<string, RangeTerm> {
  const terms = new Map<string, RangeTerm>()
  for (const [path, condition] of Object.entries(filter)) {
    if (path.startsWith('$') || condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
      continue
    }
    const operators = Object.entries(condition as Record<string, unknown>)
    if (operators.some(([operator]) => !operator.startsWith('$'))) continue
    const term: RangeTerm = { exact: true }
    for (const [operator, value] of operators) {
      const side = LOWER.has(operator) ? 'low' : UPPER.has(operator) ? 'high' : undefined
      const key = side && boundKey(value)
      if (!side || !key || term[side]) {
        term.exact = false
        continue
      }
      term[side] = { key, inclusive: operator === '$gte' || operator === '$lte' }
    }
    // Bounds of two types match nothing; the lower one alone narrows the candidates (each re-checked).
    if (term.low && term.high && term.low.key[0] !== term.high.key[0]) {
      delete term.high
      term.exact = false
    }
    if (term.low || term.high) terms.set(path, term)
  }
  return terms
}

/**
 * The keys from `low` (inclusive) to `high` (exclusive) of a range past `prefix` (index id and equality values).
 * A missing side runs to the end of the bound's type; `KEY_END` after a value passes over every key holding it.
 */
function rangeBounds(prefix: IndexKey, { low, high }: RangeTerm): [IndexKey, IndexKey] {
  const tag = ((low ?? high) as Bound).key[0]
  return [
    low ? (low.inclusive ? [...prefix, ...low.key] : [...prefix, ...low.key, KEY_END]) : [...prefix, tag],
    high ? (high.inclusive ? [...prefix, ...high.key, KEY_END] : [...prefix, ...high.key]) : [...prefix, tag + 1],
  ]
}

/** The keys of string `_id` bounds past `prefix`: an id ends a non-unique index's key, as it is (no type tag). */
function idBounds(prefix: IndexKey, { low, high }: RangeTerm): [IndexKey, IndexKey] {
  return [
    low ? (low.inclusive ? [...prefix, low.key[1]] : [...prefix, low.key[1], KEY_END]) : prefix,
    high ? (high.inclusive ? [...prefix, high.key[1], KEY_END] : [...prefix, high.key[1]]) : [...prefix, KEY_END],
  ]
}

interface IndexPlan {
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

/** The index's entries in a key range, in key order, each with the `_id` of its record. */
function entries(
  engine: Engine,
  index: LiveIndex,
  options: RangeOptions,
  pacer: Pacer,
): Generator<{ key: IndexKey; id: string } | typeof PAUSE> {
  const unique = keyedByValues(index)
  return range(engine.entries, options, pacer, !unique, (key, value) => ({
    key,
    id: unique ? (value as string) : (key.at(-1) as string),
  }))
}

const recordOf = (row: Row) => row.record

/** The indexes queries may use: those built. */
function usable(indexes: LiveIndex[]): LiveIndex[] {
  return indexes.some((index) => index.building) ? indexes.filter((index) => !index.building) : indexes
}

/** `PageOptions` with the record to page after as read: decoded only where its values are needed. */
export interface RowPageOptions extends Omit<PageOptions, 'after'> {
  after?: Row
}

/** How much a plan narrows the candidates: its equality prefix, then a range after it. */
const narrowness = (plan: IndexPlan): number => 2 * plan.prefixFields.length + (plan.ranged ? 1 : 0)

/** The plan that narrows most among `plans`; ties keep the first index. */
function narrowest(plans: IndexPlan[]): IndexPlan | undefined {
  let best: IndexPlan | undefined
  for (const plan of plans) if (!best || narrowness(plan) > narrowness(best)) best = plan
  return best
}

/** A plan on each index that narrows the filter's candidates or whose order serves the sort. */
function planIndexes(indexes: LiveIndex[], filter: Filter, sort: SortField[]): IndexPlan[] {
  const eq = equalities(filter)
  const ranges = rangeTerms(filter)
  const paths = Object.keys(filter)
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

const ID_ORDER: SortField[] = [{ path: '_id', direction: 1 }]

/**
 * The row's values of the sort's fields, as `SortValues`: read from its text (no decoding) unless `decoded`
 * (the record was decoded already, to be matched).
 */
function rowValues(fields: SortField[], row: Row, decoded: boolean): SortValues {
  const values: SortValues = []
  for (const { path } of fields) {
    const value = path === '_id' ? row.id : decoded ? getPath(row.record, path) : pathInText(row.json, path)
    const [tag, key] = sortKey(value)
    values.push(tag, key)
  }
  return values
}

/** The index that would answer a query: its equalities, then the sort (or the filter's other fields). */
function suggestedIndex(filter: Filter, sort: SortField[]): string {
  const fields = new Map<string, 1 | -1>()
  for (const path of equalities(filter).keys()) fields.set(path, 1)
  for (const { path, direction } of sort) if (path !== '_id' || fields.size === 0) fields.set(path, direction)
  for (const path of Object.keys(filter)) if (!path.startsWith('$') && !fields.has(path)) fields.set(path, 1)
  return `{ ${[...fields].map(([path, direction]) => `${path}: ${direction}`).join(', ')} }`
}

/** Text held or scanned by one query, refused past the engine's budget. */
class Budget {
  #bytes = 0
  constructor(
    readonly limit: number,
    readonly refusal: () => string,
  ) {}

  /** Refuses up front when the estimate is already past the budget. */
  check(estimate: number): void {
    if (estimate > this.limit) throw new QueryTooLargeError(this.refusal())
  }

  hold(row: Row): void {
    this.#bytes += row.json.length
    if (this.#bytes > this.limit) throw new QueryTooLargeError(this.refusal())
  }
}

/** The average size of the collection's records, to estimate what a number of them would hold. */
function averageSize(engine: Engine, collectionId: number): number {
  const { count, bytes } = engine.size(collectionId)
  return count === 0 ? 0 : bytes / count
}

/**
 * `filter` with a top-level `$and` of plain terms merged into the top level, when no path appears twice: the same
 * matches (a filter's top-level terms are and-ed), and the planner reads top-level terms only. Callers add a scope
 * to a client's filter this way (`{$and: [scope, filter]}`), which would otherwise plan as a scan.
 */
function flattenAnd(filter: Filter): Filter {
  const clauses = filter.$and
  if (!Array.isArray(clauses)) return filter
  const flat: Filter = {}
  for (const [path, condition] of Object.entries(filter)) if (path !== '$and') flat[path] = condition
  for (const clause of clauses) {
    if (clause === null || typeof clause !== 'object' || Array.isArray(clause)) return filter
    for (const [path, condition] of Object.entries(clause as Filter)) {
      if (path.startsWith('$') || path in flat) return filter
      flat[path] = condition
    }
  }
  return flat
}

/**
 * Counts matching records: `{}` from the collection's size (one read), a filter an index's bounds answer (an
 * equality prefix, a range after it) from the index entries alone (no record is read), anything else by matching
 * records (an index's candidates, else every record), refused when the records to match exceed the budget.
 */
export function* countSteps(engine: Engine, collection: string, given: Filter, pacer: Pacer): Steps<number> {
  const meta = engine.collection(collection)
  if (!meta) return 0
  const filter = flattenAnd(given)
  if (Object.keys(filter).length === 0) {
    engine.stats.reads++
    return engine.size(meta.id).count
  }
  const plan = narrowest(planIndexes(usable(meta.indexes), filter, ID_ORDER).filter((p) => narrowness(p) > 0))
  const budget = new Budget(
    engine.queryBudget,
    () => `count of this filter over this many records needs an index on ${suggestedIndex(filter, [])}`,
  )
  if (!plan || !plan.exact) {
    const candidates = plan?.bounds
    // Without an index, the records of an `_id` range: counted from their keys when the range is the filter.
    const idTerm = plan ? undefined : rangeTerms(filter).get('_id')
    const ids = idRange(meta.id, idTerm)
    const inRange = ids && engine.records.getKeysCount({ start: ids.low, end: ids.high })
    if (inRange !== undefined && idTerm?.exact === true && Object.keys(filter).length === 1) {
      engine.stats.reads += inRange
      return inRange
    }
    const toMatch = candidates ? engine.entries.getKeysCount({ start: candidates[0], end: candidates[1] }) : inRange
    budget.check(toMatch === undefined ? engine.size(meta.id).bytes : toMatch * averageSize(engine, meta.id))
    const matcher = compileFilter(filter)
    let count = 0
    const rows = candidates
      ? load(engine, meta.id, plan as IndexPlan, candidates, false, pacer)
      : scan(engine, meta.id, false, undefined, pacer, ids)
    for (const row of rows) {
      if (row === PAUSE) yield PAUSE
      else if (matcher.test(row.record)) count++
    }
    return count
  }
  const [start, end] = plan.bounds
  if (!plan.dedupe) {
    const count = engine.entries.getKeysCount({ start, end })
    engine.stats.reads += count
    return count
  }
  const ids = new Set<string>()
  for (const entry of entries(engine, plan.index, { start, end }, pacer)) {
    if (entry === PAUSE) {
      yield PAUSE
      continue
    }
    engine.stats.reads++
    ids.add(entry.id)
  }
  return ids.size
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
interface IdRange {
  low: string
  high: string
}

/**
 * The records' keys of an `_id` range with string bounds (every stored `_id` is a string, keyed in UTF-8 order,
 * which `boundKey` keeps to); undefined for bounds of another type, which fall back to the whole collection.
 * `\0` after an id makes the next key: a `$gt` start and a `$lte` end pass over the bound itself.
 */
function idRange(collectionId: number, term: RangeTerm | undefined): IdRange | undefined {
  if (!term || ((term.low ?? term.high) as Bound).key[0] !== TypeTag.string) return undefined
  const key = (bound: Bound, next: boolean) => recordKey(collectionId, `${bound.key[1]}${next ? '\0' : ''}`)
  const { low, high } = term
  return {
    low: low ? key(low, !low.inclusive) : recordPrefix(collectionId),
    high: high ? key(high, high.inclusive) : recordPrefix(collectionId + 1),
  }
}

/** The collection's records (or those of `ids`) in `_id` order, from past `after` (exclusive). */
function scan(
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
function load(
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

function read(engine: Engine, collectionId: number, id: string): Row | undefined {
  engine.stats.reads++
  const json = engine.records.get(recordKey(collectionId, id))
  return json === undefined ? undefined : new Row(id, json)
}

/**
 * Answers a find from the cheapest source: an index whose order is the requested one (about `skip + limit`
 * entries read), the primary key under the `_id` order (the records of an `_id` range, with one), an index
 * narrowing the candidates (an equality prefix, a range after it), the records of an `_id` range, or else a scan.
 * Every candidate is re-checked against the whole filter, unless the bounds answer it. A sort no index serves
 * holds every match in memory, within the budget, unless a walk in the sort's order answers instead; so does a
 * `skip`, estimated up front.
 */
export function* findSteps(
  engine: Engine,
  collection: string,
  given: Filter,
  options: RowPageOptions,
  pacer: Pacer,
  budgeted = true,
): Steps<Row[]> {
  const meta = engine.collection(collection)
  if (!meta) return []
  const filter = flattenAnd(given)
  const collectionId = meta.id
  const { sort, after } = options
  let match: Matcher | undefined
  const skip = options.skip ?? 0
  const wanted = options.limit === undefined ? Infinity : skip + options.limit
  const limit = budgeted ? engine.queryBudget : Infinity
  if (skip > 0 && skip * averageSize(engine, collectionId) > limit) {
    throw new QueryTooLargeError(`skip ${skip} is past the query budget: page with \`after\` instead`)
  }

  const matchesAll = Object.keys(filter).length === 0
  /** Pages off candidates already in order; `exact` when the candidates are the matches (no re-check, no decoding). */
  const take = function* (candidates: Iterable<Row | typeof PAUSE>, exact = matchesAll): Steps<Row[]> {
    const page: Row[] = []
    let passed = 0
    for (const row of candidates) {
      if (row === PAUSE) {
        yield PAUSE
        continue
      }
      if (page.length + passed >= wanted) break
      if (exact || (match ??= compileFilter(filter)).test(row.record)) {
        if (passed < skip) passed++
        else page.push(row)
      }
    }
    return page
  }
  const refusal = (): string => {
    const sorted = sort.filter(({ path }) => path !== '_id').map(({ path }) => `\`${path}\``)
    return `${sorted.length > 0 ? `sort on ${sorted.join(', ')}` : 'this query'} needs an index on ${suggestedIndex(filter, sort)}`
  }
  /** Holds every match, within the budget, then sorts and pages them. */
  const inMemory = function* (candidates: Iterable<Row | typeof PAUSE>, estimate: number): Steps<Row[]> {
    const budget = new Budget(limit, refusal)
    budget.check(estimate)
    const matcher = compileFilter(filter)
    const matching: Row[] = []
    for (const row of candidates) {
      if (row === PAUSE) {
        yield PAUSE
        continue
      }
      if (!matcher.test(row.record)) continue
      budget.hold(row)
      matching.push(row)
    }
    return sortInMemory(matching, { ...options, after: after?.record }, recordOf)
  }

  /**
   * Pages candidates not in the sort's order (an index narrowing them) by keeping the first `skip + limit`
   * past `after` in a bounded heap: the budget applies to what it holds, not to the candidates. When the index
   * answers the filter (`exact`), each candidate's sort values are read from its text and no record is decoded;
   * else each is decoded to be matched. Falls back to `inMemory` when every match is wanted.
   */
  const ranked = function* (
    candidates: Iterable<Row | typeof PAUSE>,
    exact: boolean,
    estimate: () => number,
  ): Steps<Row[]> {
    if (wanted === Infinity) return yield* inMemory(candidates, estimate())
    new Budget(limit, refusal).check(wanted * averageSize(engine, collectionId))
    const order = valuesOrder(sort)
    const top = new TopK<Row>(wanted, order)
    const past = after && rowValues(sort, after, true)
    for (const row of candidates) {
      if (row === PAUSE) {
        yield PAUSE
        continue
      }
      if (!exact && !(match ??= compileFilter(filter)).test(row.record)) continue
      const values = rowValues(sort, row, !exact)
      if (past && order(values, past) <= 0) continue
      top.offer(row, values)
    }
    return top.sorted().slice(skip)
  }

  /**
   * `ranked` over the candidates of an index range that answers the filter, read outside a write: the range as
   * the store keeps it (`engine.sortValues`), else its entries, each candidate's sort values kept or else read
   * from its text (then kept, and the whole range with them when read in one go). Only the records ranked
   * are read (`read` again unless the heap holds them already).
   */
  const rankedEntries = function* (plan: IndexPlan, [low, high]: [IndexKey, IndexKey]): Steps<Row[]> {
    new Budget(limit, refusal).check(wanted * averageSize(engine, collectionId))
    pacer.allow(BOUNDED_READS)
    const order = valuesOrder(sort)
    const top = new TopK<{ id: string; row: Row | undefined }>(wanted, order)
    const past = after && rowValues(sort, after, true)
    const offer = (id: string, values: SortValues, row?: Row): void => {
      if (!past || order(values, past) > 0) top.offer({ id, row }, values)
    }
    const snapshot = engine.sortValues.snapshot(collectionId, engine.size(collectionId).stamp)
    const rangeKey = `${JSON.stringify([low, high])} ${sort.map(({ path }) => path).join(' ')}`
    const kept = snapshot.range(rangeKey)
    if (kept) {
      // Records written since the snapshot's stamp are read as the snapshot has them, not as kept.
      const hidden = snapshot.hidden()
      const { ids, values } = kept
      for (let i = 0; i < ids.length; i++) {
        if (!hidden.has(ids[i] as string)) offer(ids[i] as string, values[i] as SortValues)
      }
      for (const id of hidden) {
        const row = read(engine, collectionId, id)
        if (row && kept.holds(id, row.record)) offer(id, rowValues(sort, row, true), row)
      }
    } else {
      const known = sort.map(({ path }) => (path === '_id' ? undefined : snapshot.values(path)))
      // Kept only when read in one go (one snapshot) with every candidate still there.
      let whole: KeptRange | undefined = new KeptRange(plan.index, low, high, sort)
      const seen = plan.dedupe ? new Set<string>() : undefined
      for (const entry of entries(engine, plan.index, { start: low, end: high }, pacer)) {
        if (entry === PAUSE) {
          whole = undefined
          yield PAUSE
          continue
        }
        engine.stats.reads++
        const { id } = entry
        if (seen) {
          if (seen.has(id)) continue
          seen.add(id)
        }
        let row: Row | undefined
        const values: SortValues = []
        for (let i = 0; i < sort.length; i++) {
          const column = known[i]
          let value = column ? column.get(id) : sortKey(id)
          if (!value) {
            row ??= read(engine, collectionId, id)
            // Gone since its entry was read (a write between two slices): no longer a match.
            if (!row) break
            value = sortKey(pathInText(row.json, (sort[i] as SortField).path))
            column?.note(id, value)
          }
          values.push(value[0], value[1])
        }
        if (values.length < 2 * sort.length) {
          whole = undefined
          continue
        }
        whole?.add(id, values)
        offer(id, values, row)
      }
      if (whole) snapshot.keepRange(rangeKey, whole)
    }
    const page: Row[] = []
    for (const { id, row } of top.sorted().slice(skip)) {
      const found = row ?? read(engine, collectionId, id)
      if (found) page.push(found)
    }
    return page
  }

  if (typeof filter._id === 'string') {
    const row = read(engine, collectionId, filter._id)
    if (!after && skip === 0 && Object.keys(filter).length === 1) return row && wanted > 0 ? [row] : []
    // The read answered the `_id` term. Matching the rest alone compiles one filter for all ids, not one per id.
    const rest: Filter = { ...filter }
    delete rest._id
    const matching = row && compileFilter(rest).test(row.record) ? [row] : []
    return sortInMemory(matching, { ...options, after: after?.record }, recordOf)
  }

  /** An index's candidates not in the sort's order: a bounded heap, or every match sorted when all are wanted. */
  const narrowIndex = function* (plan: IndexPlan): Steps<Row[]> {
    const { exact, bounds } = plan
    if (exact && pacer.pauses && wanted !== Infinity) return yield* rankedEntries(plan, bounds)
    // An estimate from the range's size, when the index answers the filter (every entry is a match).
    const estimate = (): number =>
      exact ? engine.entries.getKeysCount({ start: bounds[0], end: bounds[1] }) * averageSize(engine, collectionId) : 0
    return yield* ranked(load(engine, collectionId, plan, bounds, false, pacer), exact, estimate)
  }

  /** A walk in an index's order, the sort's: about `skip + limit` entries when the index narrows the filter. */
  const walkIndex = function* (plan: IndexPlan): Steps<Row[]> {
    const [low, high] = plan.bounds
    // Entries and records are read in one snapshot, so when the bounds answer the filter every candidate matches.
    const { exact } = plan
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
      const id = engine.entries.get(low)
      const row = typeof id === 'string' ? read(engine, collectionId, id) : undefined
      return row ? [row] : []
    }
    if (!after) {
      return yield* plan.reverse
        ? take(load(engine, collectionId, plan, [high, low], true, pacer), exact)
        : take(load(engine, collectionId, plan, [low, high], false, pacer), exact)
    }

    // Matches tie on the prefix fields, so `after` sits in the range when it holds the filter's values on
    // those the sort names; its place there is given by its values on the remaining fields, then `_id`.
    const fields = Object.keys(plan.index.spec.fields)
    const sorted = new Set(sort.map(({ path }) => path))
    const afterRecord = after.record
    const afterInRange = plan.prefixFields.every(
      (path, i) =>
        !sorted.has(path) ||
        JSON.stringify(sortKey(getPath(afterRecord, path))) === JSON.stringify(plan.prefix.slice(2 * i, 2 * i + 2)),
    )
    if (!afterInRange) return yield* narrowIndex(plan)
    const values = [
      plan.index.id,
      ...plan.prefix,
      ...valuesKey(fields.slice(plan.prefixFields.length).map((path) => getPath(afterRecord, path))),
    ]
    const from = keyedByValues(plan.index) ? values : [...values, after.id]
    // Within a range, the walk starts at `after` or at the range's near end, whichever comes later.
    if (plan.reverse) {
      if (compareKeys(from, low) < 0) return []
      return yield* compareKeys(from, high) < 0
        ? take(load(engine, collectionId, plan, [from, low], true, pacer, after.id), exact)
        : take(load(engine, collectionId, plan, [high, low], true, pacer), exact)
    }
    if (compareKeys(from, high) >= 0) return []
    return yield* compareKeys(from, low) >= 0
      ? take(load(engine, collectionId, plan, [from, high], false, pacer, after.id), exact)
      : take(load(engine, collectionId, plan, [low, high], false, pacer), exact)
  }

  /**
   * Runs a plan holding candidates in memory (a heap of `skip + limit`, or every match when all are wanted) and,
   * should they pass the budget, answers through the walk in the sort's order instead, which holds only the
   * page it returns: choosing the cheaper plan never refuses a query the walk answers. Past the budget is
   * mostly told up front (a heap's size, a range the index answers), else once the matches held cross it.
   */
  const orWalk = function* (held: Steps<Row[]>, walk: () => Steps<Row[]>): Steps<Row[]> {
    try {
      return yield* held
    } catch (error) {
      if (!(error instanceof QueryTooLargeError)) throw error
    }
    return yield* walk()
  }

  const idOrder = sort.length === 1 && sort[0]?.path === '_id'
  const idTerm = rangeTerms(filter).get('_id')
  const ids = idRange(collectionId, idTerm)
  /** Every record of the `_id` range matches: the filter is that range alone (or nothing). */
  const idsExact = matchesAll || (ids !== undefined && idTerm?.exact === true && Object.keys(filter).length === 1)
  /** Records in the `_id` range, counted from their keys up to `most` (without a range, the collection's). */
  const idCount = (most: number): number => {
    if (!ids) return engine.size(collectionId).count
    const keys = engine.records.getKeys({ start: ids.low, end: ids.high, limit: most })[Symbol.iterator]()
    let counted = 0
    while (!keys.next().done) counted++
    return counted
  }
  const records = engine.size(collectionId).count
  const plans = planIndexes(usable(meta.indexes), filter, sort)
  const narrowing = narrowest(plans.filter((p) => !p.ordered && narrowness(p) > 0))
  const walk = narrowest(plans.filter((p) => p.ordered))
  // A walk in an index's order that narrows the filter too reads about `skip + limit` entries: the plan.
  if (walk && narrowness(walk) > 0) return yield* walkIndex(walk)
  const entryCount = ({ bounds: [start, end] }: IndexPlan): number => engine.entries.getKeysCount({ start, end })
  // An index narrowing the filter reads each candidate (only its entry when its bounds answer the filter and a
  // heap pages it).
  const costOf = ({ exact }: IndexPlan): number => (exact && pacer.pauses && wanted !== Infinity ? ENTRY_COST : 1)

  if (idOrder) {
    /**
     * The primary key's walk reads records of the `_id` range until `wanted` match. An index narrowing the filter
     * pays when its candidates cost less than the records the walk would read were the matches spread evenly
     * along it, `wanted` of every `records / candidates` (a date range clustered at the end of the `_id` order
     * does better still), and than the walk's whole range.
     */
    const walkIds = () => take(scan(engine, collectionId, sort[0]?.direction === -1, after?.id, pacer, ids), idsExact)
    if (narrowing) {
      const candidates = entryCount(narrowing)
      const cost = candidates * costOf(narrowing)
      const pays = wanted === Infinity || candidates * cost <= wanted * records
      if (pays && idCount(Math.ceil(cost) + 1) >= cost) return yield* orWalk(narrowIndex(narrowing), walkIds)
    }
    return yield* walkIds()
  }

  // Candidates that narrow the filter but not in the sort's order: an index's, or the records of the `_id` range
  // (taken over an index narrowing by a range alone when they are fewer).
  let narrowed: { steps: () => Steps<Row[]>; count: (most: number) => number; cost: number } | undefined
  if (narrowing) {
    const candidates = narrowness(narrowing) === 1 && ids ? entryCount(narrowing) : undefined
    if (candidates === undefined || idCount(candidates) >= candidates) {
      narrowed = { steps: () => narrowIndex(narrowing), count: () => entryCount(narrowing), cost: costOf(narrowing) }
    }
  }
  if (!narrowed && ids) {
    const byIds = () => ranked(scan(engine, collectionId, false, undefined, pacer, ids), idsExact, () => 0)
    narrowed = { steps: byIds, count: idCount, cost: 1 }
  }
  if (!narrowed) {
    if (walk) return yield* walkIndex(walk)
    return yield* inMemory(
      scan(engine, collectionId, false, undefined, pacer),
      matchesAll ? engine.size(collectionId).bytes : 0,
    )
  }
  if (!walk) return yield* narrowed.steps()
  // A walk in an index's order that narrows nothing reads records until `wanted` match: the candidates pay when
  // all are wanted, or when `candidates² × cost ≤ wanted × records` (as under the `_id` order above).
  const most = Math.sqrt((wanted * records) / narrowed.cost)
  if (wanted !== Infinity && narrowed.count(Math.floor(most) + 1) > most) return yield* walkIndex(walk)
  return yield* orWalk(narrowed.steps(), () => walkIndex(walk))
}
