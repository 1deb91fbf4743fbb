import type { ListQuerystring } from '@quire/contracts'
import {
  checkFilter,
  checkProjection,
  checkSort,
  InvalidQueryError,
  type Filter,
  type Projection,
  type Sort,
  type StoredRecord,
} from '@quire/records'
import { fail } from '@quire/service-kit'

/** The list parameters once parsed and checked; what the client asked for, before visibility is added. */
export interface ListQuery {
  filter: Filter
  sort: Sort
  /** The client's `fields`, as given (for `next`). */
  fields: Projection
  exclude: string[]
  /** `fields` and `exclude` combined; `_id` is always returned (the next page starts after it). */
  projection: Projection
  limit: number
  skip: number
  /** `after` as given: an `_id`, or a cursor (`next` of a list under another sort than `_id`'s). */
  after?: string
  /**
   * Where the page starts, when `after` tells it without reading a document: an `_id` under the `_id` order, or
   * a cursor's values. Absent with an `_id` under another sort: that document's values are read.
   */
  position?: StoredRecord
  count: boolean
}

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 800
const OPTION_KEYS = new Set(['sort', 'skip', 'limit', 'fields'])

const invalid = (parameter: string, why: string) =>
  fail('invalid_query', `${parameter}: ${why}`, `The list parameter "${parameter}" is not valid`)

function parseJson(parameter: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw invalid(parameter, 'is not valid JSON')
  }
}

/** Runs a records check, reporting its complaint under the parameter's name. */
function checked<T>(parameter: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    if (error instanceof InvalidQueryError) throw invalid(parameter, error.message)
    throw error
  }
}

function integer(parameter: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(parameter, `must be an integer from ${min} to ${max}`)
  }
  return value
}

/** `exclude`: a JSON array of field names (a document list's, and the definitions list's). */
export function parseExclude(text: string | undefined): string[] {
  if (text === undefined) return []
  const exclude = parseJson('exclude', text)
  if (!Array.isArray(exclude) || !exclude.every((name) => typeof name === 'string')) {
    throw invalid('exclude', 'must be a JSON array of field names')
  }
  checked('exclude', () => checkProjection(Object.fromEntries(exclude.map((name) => [name, 0]))))
  return exclude
}

/** `options` as the platform's scripts pass it: `{sort, skip, limit, fields}`; explicit parameters win. */
function parseOptions(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {}
  const options = parseJson('options', text)
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalid('options', 'must be a JSON object')
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw invalid('options', `unknown option "${key}" (allowed: sort, skip, limit, fields)`)
  }
  return options as Record<string, unknown>
}

function combine(fields: Projection, exclude: string[]): Projection {
  const projection: Projection = { ...fields }
  delete projection._id
  const including = Object.values(projection).includes(1)
  for (const name of exclude) {
    if (name === '_id') continue
    if (including) delete projection[name]
    else projection[name] = 0
  }
  // Every included field excluded again: only `_id` is left.
  if (including && Object.keys(projection).length === 0) return { _id: 1 }
  return projection
}

/** Parses and checks the list parameters; a malformed one is 400 `invalid_query` naming it. */
export function parseListQuery(querystring: ListQuerystring): ListQuery {
  const options = parseOptions(querystring.options)
  const { query: queryText } = querystring
  const filter = queryText === undefined ? {} : checked('query', () => checkFilter(parseJson('query', queryText)))
  const sortValue = querystring.sort === undefined ? options.sort : parseJson('sort', querystring.sort)
  const sortName = querystring.sort === undefined ? 'options.sort' : 'sort'
  const sort = checked(sortName, () => checkSort(sortValue))
  const fieldsValue = querystring.fields === undefined ? options.fields : parseJson('fields', querystring.fields)
  const fieldsName = querystring.fields === undefined ? 'options.fields' : 'fields'
  const fields = checked(fieldsName, () => checkProjection(fieldsValue))
  const exclude = parseExclude(querystring.exclude)
  const limit =
    querystring.limit ??
    (options.limit === undefined ? DEFAULT_LIMIT : integer('options.limit', options.limit, 1, MAX_LIMIT))
  const skip =
    querystring.skip ?? (options.skip === undefined ? 0 : integer('options.skip', options.skip, 0, 1_000_000))
  return {
    filter,
    sort,
    fields,
    exclude,
    projection: combine(fields, exclude),
    limit,
    skip,
    after: querystring.after,
    position: querystring.after === undefined ? undefined : positionOf(querystring.after, sort),
    count: querystring.count === true,
  }
}

/** Cursors start with `~`, which no `_id` this service makes holds; the rest is base64url JSON. */
const CURSOR = '~'
/** A cursor longer than this (a long sort value) gives way to the `_id` in `next`. */
const MAX_CURSOR_LENGTH = 4096

/** Under the `_id` order (the default) a page's place is its last `_id`, whether or not that document still exists. */
export const inIdOrder = (sort: Sort): boolean => Object.keys(sort).every((path) => path === '_id')

const valueAt = (record: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, segment) => {
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined
  }, record)

function setPath(record: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.')
  const leaf = segments.pop() as string
  let at = record
  for (const segment of segments) {
    const inner = at[segment]
    at = inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>) : (at[segment] = {})
  }
  at[leaf] = value
}

/** Operator names cannot hide in a cursor's values: they become comparison operands of the next page's filter. */
function plainValue(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  return Object.entries(value).every(([key, inner]) => !key.startsWith('$') && plainValue(inner))
}

/**
 * `after` of the page following `last` (a record holding at least the sort's fields): its `_id` under the `_id`
 * order; otherwise a cursor of its sort values and `_id`, so the list continues even once `last` is deleted.
 */
export function afterOf(sort: Sort, last: StoredRecord): string {
  if (inIdOrder(sort)) return last._id
  const values = Object.keys(sort).map((path) => valueAt(last, path) ?? null)
  const cursor = CURSOR + Buffer.from(JSON.stringify([...values, last._id])).toString('base64url')
  return cursor.length <= MAX_CURSOR_LENGTH ? cursor : last._id
}

/** The start of a page from `after`, when it needs no stored document (see `ListQuery.position`). */
function positionOf(after: string, sort: Sort): StoredRecord | undefined {
  if (!after.startsWith(CURSOR)) return inIdOrder(sort) ? { _id: after } : undefined
  const paths = Object.keys(sort)
  let values: unknown
  try {
    values = JSON.parse(Buffer.from(after.slice(CURSOR.length), 'base64url').toString())
  } catch {
    values = undefined
  }
  const id: unknown = Array.isArray(values) ? values.at(-1) : undefined
  if (!Array.isArray(values) || values.length !== paths.length + 1 || typeof id !== 'string' || !plainValue(values)) {
    throw invalid('after', 'is not a cursor of a list under this sort')
  }
  const position: Record<string, unknown> = {}
  paths.forEach((path, index) => setPath(position, path, values[index]))
  return { ...position, _id: id }
}

const nonEmpty = (value: object) => Object.keys(value).length > 0

/**
 * The query string of the page from `after` (`afterOf` the last item): `limit`, `exclude`, `after`, then the
 * query, sort and fields in force, so that fed back verbatim it continues the same list. `options` is spelled
 * out; `skip` is spent.
 */
export function nextPageQuery(query: ListQuery, after: string): string {
  const parts: [string, string][] = [
    ['limit', String(query.limit)],
    ['exclude', JSON.stringify(query.exclude)],
    ['after', after],
  ]
  if (nonEmpty(query.filter)) parts.push(['query', JSON.stringify(query.filter)])
  if (nonEmpty(query.sort)) parts.push(['sort', JSON.stringify(query.sort)])
  if (nonEmpty(query.fields)) parts.push(['fields', JSON.stringify(query.fields)])
  if (query.count) parts.push(['count', 'true'])
  return parts.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')
}
