import { Query as FullQuery } from 'mingo'
import { Context } from 'mingo/core'
import * as queryOperators from 'mingo/operators/query'
import { Query } from 'mingo/query'
import RE2 from 're2'
import type { Filter } from './port.js'

export interface Matcher {
  test(record: object): boolean
}

/**
 * mingo's default `Query` copies its whole operator table (hundreds of expression operators) on every
 * construction, which cost more than most matches. Filters that use only query operators (all a client may send) compile against a
 * query-only table instead; `$expr`, `$where`, `$function` and `$jsonSchema` still get the full one.
 */
/**
 * `$regex` matched by RE2, in time linear in the input: a backtracking pattern (`^(a+)+$`) cannot stall the
 * event loop. mingo builds a RegExp from `$regex` and `$options` first; its own operator then calls `exec` on
 * what it is given, which RE2 implements alike.
 */
const linearRegex: typeof queryOperators.$regex = (selector, value, options) =>
  queryOperators.$regex(selector, value instanceof RegExp ? new RE2(value.source, value.flags) : value, options)

const QUERY_ONLY = Context.init({ query: { ...queryOperators, $regex: linearRegex } })
const NEEDS_FULL = new Set(['$expr', '$where', '$function', '$jsonSchema', '$accumulator'])

function needsFull(value: unknown, depth = 0): boolean {
  if (depth > 32 || value === null || typeof value !== 'object' || value instanceof Date || value instanceof RegExp) {
    return false
  }
  if (Array.isArray(value)) return value.some((item) => needsFull(item, depth + 1))
  return Object.entries(value).some(([key, item]) => NEEDS_FULL.has(key) || needsFull(item, depth + 1))
}

/** JSON, except that regular expressions and dates stay distinct from strings and objects. */
function filterText(filter: Filter): string {
  return JSON.stringify(filter, function (this: Record<string, unknown>, key: string, value: unknown) {
    const raw = this[key]
    if (raw instanceof RegExp) return `\u0000regex:${String(raw)}`
    if (raw instanceof Date) return `\u0000date:${raw.getTime()}`
    return value
  })
}

const CACHE_SIZE = 500
const cache = new Map<string, Matcher>()

/** A compiled filter, reused for the same filter text (least recently used ones are dropped). */
export function compileFilter(filter: Filter): Matcher {
  const text = filterText(filter)
  const cached = cache.get(text)
  if (cached) {
    cache.delete(text)
    cache.set(text, cached)
    return cached
  }
  const matcher: Matcher = needsFull(filter) ? new FullQuery(filter) : new Query(filter, { context: QUERY_ONLY })
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  cache.set(text, matcher)
  return matcher
}
