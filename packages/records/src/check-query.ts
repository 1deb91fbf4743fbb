import RE2 from 're2'
import { InvalidQueryError } from './errors.js'
import type { Filter, Projection, Sort } from './port.js'

/** The operators the platform allows in client filters (docs/API.md); anything else (`$where`, `$expr`, ...) is refused. */
const ALLOWED_OPERATORS = new Set([
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$regex',
  '$options',
  '$and',
  '$or',
  '$nor',
  '$not',
  '$elemMatch',
  '$size',
  '$all',
  '$type',
])
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_DEPTH = 8
const MAX_NODES = 200
const MAX_REGEX_LENGTH = 256
const MAX_SORT_KEYS = 8

interface Budget {
  nodes: number
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function checkFieldName(key: string): void {
  if (key === '' || key.startsWith('$') || key.split('.').some((part) => part === '' || FORBIDDEN_KEYS.has(part))) {
    throw new InvalidQueryError(`invalid field name "${key}"`)
  }
}

function checkValue(value: unknown, depth: number, budget: Budget): void {
  if (depth > MAX_DEPTH) throw new InvalidQueryError(`filter nested deeper than ${MAX_DEPTH} levels`)
  if (++budget.nodes > MAX_NODES) throw new InvalidQueryError(`filter larger than ${MAX_NODES} entries`)
  if (Array.isArray(value)) {
    for (const item of value) checkValue(item, depth + 1, budget)
    return
  }
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      throw new InvalidQueryError('filter values must be JSON values')
    }
    return
  }
  if (!isPlainObject(value)) throw new InvalidQueryError('filter values must be JSON values')
  for (const [key, inner] of Object.entries(value)) {
    if (key.startsWith('$')) {
      if (!ALLOWED_OPERATORS.has(key)) throw new InvalidQueryError(`operator ${key} is not allowed`)
      if (key === '$regex') checkRegex(inner, value.$options)
      if (key === '$options' && !('$regex' in value)) throw new InvalidQueryError('$options needs a $regex beside it')
    } else {
      checkFieldName(key)
    }
    checkValue(inner, depth + 1, budget)
  }
}

/** Mongo's `$options` that both engines read the same way: case-insensitive, multi-line, dot matches newlines. */
const REGEX_OPTIONS = /^(?!.*(.).*\1)[ims]*$/

/**
 * A pattern both engines accept: mingo builds a JavaScript RegExp from it, and the match itself runs in RE2
 * (linear time, see match.ts), so a pattern that RE2 cannot run (backreferences, lookarounds) is refused.
 */
function checkRegex(value: unknown, options: unknown): void {
  if (typeof value !== 'string') throw new InvalidQueryError('$regex must be a string')
  if (value.length > MAX_REGEX_LENGTH) throw new InvalidQueryError(`$regex longer than ${MAX_REGEX_LENGTH} characters`)
  if (options !== undefined && (typeof options !== 'string' || !REGEX_OPTIONS.test(options))) {
    throw new InvalidQueryError('$options may only hold the flags i, m and s, each once')
  }
  const flags = options ?? ''
  try {
    RegExp(value, flags)
  } catch {
    throw new InvalidQueryError('$regex is not a valid regular expression')
  }
  try {
    RE2(value, flags)
  } catch {
    throw new InvalidQueryError('$regex uses a construct that cannot run in linear time (backreference, lookaround)')
  }
}

/** Validates a client-supplied filter: allowed operators only, bounded depth and size, no prototype keys. */
export function checkFilter(filter: unknown): Filter {
  if (filter === undefined || filter === null) return {}
  if (!isPlainObject(filter)) throw new InvalidQueryError('filter must be an object')
  checkValue(filter, 0, { nodes: 0 })
  return filter
}

/** Validates a client-supplied sort: `{field: 1 | -1}`. */
export function checkSort(sort: unknown): Sort {
  if (sort === undefined || sort === null) return {}
  if (!isPlainObject(sort)) throw new InvalidQueryError('sort must be an object')
  const entries = Object.entries(sort)
  if (entries.length > MAX_SORT_KEYS) throw new InvalidQueryError(`sort has more than ${MAX_SORT_KEYS} fields`)
  for (const [key, direction] of entries) {
    checkFieldName(key)
    if (direction !== 1 && direction !== -1) throw new InvalidQueryError(`sort direction of "${key}" must be 1 or -1`)
  }
  return sort as Sort
}

/** Validates a client-supplied projection: all includes or all excludes (`_id` may be excluded either way). */
export function checkProjection(projection: unknown): Projection {
  if (projection === undefined || projection === null) return {}
  if (!isPlainObject(projection)) throw new InvalidQueryError('projection must be an object')
  const entries = Object.entries(projection)
  if (entries.length > MAX_NODES) throw new InvalidQueryError(`projection has more than ${MAX_NODES} fields`)
  let mode: 0 | 1 | undefined
  for (const [key, value] of entries) {
    checkFieldName(key)
    if (value !== 0 && value !== 1) throw new InvalidQueryError(`projection of "${key}" must be 0 or 1`)
    if (key === '_id') continue
    if (mode !== undefined && mode !== value) {
      throw new InvalidQueryError('projection cannot mix inclusion and exclusion')
    }
    mode = value
  }
  return projection as Projection
}
