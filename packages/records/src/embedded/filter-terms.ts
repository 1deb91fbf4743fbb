import { compileFilter, type Matcher } from '../match.js'
import type { Filter } from '../port.js'
import { sortKey, type SortField } from '../sort-order.js'
import { KEY_END, type IndexKey } from './index-keys.js'

export type Scalar = string | number | boolean | null

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
export interface Bound {
  key: [number, number | string]
  inclusive: boolean
}

/** A top-level `field: {$gt.., $lt..}` term: the bounds an index can seek on. */
export interface RangeTerm {
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
export function rangeBounds(prefix: IndexKey, { low, high }: RangeTerm): [IndexKey, IndexKey] {
  const tag = ((low ?? high) as Bound).key[0]
  return [
    low ? (low.inclusive ? [...prefix, ...low.key] : [...prefix, ...low.key, KEY_END]) : [...prefix, tag],
    high ? (high.inclusive ? [...prefix, ...high.key, KEY_END] : [...prefix, ...high.key]) : [...prefix, tag + 1],
  ]
}

/** The keys of string `_id` bounds past `prefix`: an id ends a non-unique index's key, as it is (no type tag). */
export function idBounds(prefix: IndexKey, { low, high }: RangeTerm): [IndexKey, IndexKey] {
  return [
    low ? (low.inclusive ? [...prefix, low.key[1]] : [...prefix, low.key[1], KEY_END]) : prefix,
    high ? (high.inclusive ? [...prefix, high.key[1], KEY_END] : [...prefix, high.key[1]]) : [...prefix, KEY_END],
  ]
}

/** The index that would answer a query: its equalities, then the sort (or the filter's other fields). */
function suggestedIndex(filter: Filter, eq: Map<string, Scalar>, sort: SortField[]): string {
  const fields = new Map<string, 1 | -1>()
  for (const path of eq.keys()) fields.set(path, 1)
  for (const { path, direction } of sort) if (path !== '_id' || fields.size === 0) fields.set(path, direction)
  for (const path of Object.keys(filter)) if (!path.startsWith('$') && !fields.has(path)) fields.set(path, 1)
  return `{ ${[...fields].map(([path, direction]) => `${path}: ${direction}`).join(', ')} }`
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
 * A filter parsed once for planning: `$and` of plain terms merged into the top level, then the top-level terms an
 * index or the primary key can seek on, and the whole filter compiled for the candidates it leaves to check.
 */
export class FilterTerms {
  readonly filter: Filter
  readonly paths: string[]
  readonly equalities: Map<string, Scalar>
  readonly ranges: Map<string, RangeTerm>
  #matcher: Matcher | undefined

  constructor(given: Filter) {
    this.filter = flattenAnd(given)
    this.paths = Object.keys(this.filter)
    this.equalities = equalities(this.filter)
    this.ranges = rangeTerms(this.filter)
  }

  get matchesAll(): boolean {
    return this.paths.length === 0
  }

  get matcher(): Matcher {
    return (this.#matcher ??= compileFilter(this.filter))
  }

  /** The index that would answer the filter under `sort`. */
  suggestedIndex(sort: SortField[]): string {
    return suggestedIndex(this.filter, this.equalities, sort)
  }
}
