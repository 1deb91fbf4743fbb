import { find as mingoFind } from 'mingo'
import { compileFilter } from './match.js'
import { compareSortOperands, sortOperands, type SortField } from './sort-order.js'
import type { Filter, Projection, StoredRecord } from './port.js'

export interface PageOptions {
  sort: SortField[]
  after?: StoredRecord
  skip?: number
  limit?: number
}

/**
 * Filters, pages and orders candidates with Mongo semantics (mingo for matching); `recordOf` gives the record
 * a candidate stands for (a stored row, or the record itself).
 */
export function pageInMemory<C>(
  candidates: Iterable<C>,
  filter: Filter,
  options: PageOptions,
  recordOf: (candidate: C) => StoredRecord,
): C[] {
  const match = compileFilter(filter)
  const matching: C[] = []
  for (const candidate of candidates) if (match.test(recordOf(candidate))) matching.push(candidate)
  return sortInMemory(matching, options, recordOf)
}

/**
 * Pages and orders matches: those past `after` under the sort, then `skip` and `limit`. Each candidate's sort
 * operands are read once; `after` is compared with them, so it pages exactly as the sort orders (an array's
 * operand is one of its elements, which no `$gt`/`$lt` filter can name).
 */
export function sortInMemory<C>(matching: C[], options: PageOptions, recordOf: (candidate: C) => StoredRecord): C[] {
  const { sort, after } = options
  const start = options.skip ?? 0
  const end = options.limit === undefined ? undefined : start + options.limit
  // One match (a read by `_id`, each of a sweep's deletions) has nothing to be ordered against: its record is
  // not decoded for its operands.
  if (matching.length <= 1 && !after) return matching.slice(start, end)
  const compare = compareSortOperands(sort)
  let keyed = matching.map((candidate) => ({ candidate, operands: sortOperands(sort, recordOf(candidate)) }))
  if (after) {
    const past = sortOperands(sort, after)
    keyed = keyed.filter(({ operands }) => compare(operands, past) > 0)
  }
  keyed.sort((a, b) => compare(a.operands, b.operands))
  return keyed.slice(start, end).map(({ candidate }) => candidate)
}

/** A projection's paths as a tree: `true` at a projected path's last segment. */
interface PathTree {
  [segment: string]: PathTree | true
}

type Projector = (record: StoredRecord) => StoredRecord

function isObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !ArrayBuffer.isView(value)
  )
}

function including(tree: PathTree, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const sub = tree[key]
    if (sub === undefined || !Object.hasOwn(tree, key)) continue
    const field = value[key]
    if (sub === true) out[key] = field
    else if (Array.isArray(field)) out[key] = includingArray(sub, field)
    else if (isObject(field)) out[key] = including(sub, field)
  }
  return out
}

function includingArray(tree: PathTree, values: unknown[]): unknown[] {
  const out: unknown[] = []
  for (const element of values) {
    if (Array.isArray(element)) out.push(includingArray(tree, element))
    else if (isObject(element)) out.push(including(tree, element))
  }
  return out
}

function excluding(tree: PathTree, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const sub = Object.hasOwn(tree, key) ? tree[key] : undefined
    const field = value[key]
    if (sub === true) continue
    if (sub === undefined) out[key] = field
    else if (Array.isArray(field)) out[key] = excludingArray(sub, field)
    else if (isObject(field)) out[key] = excluding(sub, field)
    else out[key] = field
  }
  return out
}

function excludingArray(tree: PathTree, values: unknown[]): unknown[] {
  return values.map((element) =>
    Array.isArray(element) ? excludingArray(tree, element) : isObject(element) ? excluding(tree, element) : element,
  )
}

/**
 * Compiles a projection of 0/1 values into a plain function (Mongo semantics: an inclusion keeps `_id` unless
 * `_id: 0`, keeps the document's field order, and goes through arrays of subdocuments along a path). Anything
 * unusual (mixed modes, colliding paths, numeric segments) is left to mingo.
 */
function compileProjection(projection: Projection): Projector | undefined {
  const entries = Object.entries(projection)
  const idValue = projection._id
  const others = entries.filter(([path]) => path !== '_id')
  if (others.some(([, value]) => value !== others[0]?.[1]) || entries.some(([, value]) => value !== 0 && value !== 1)) {
    return undefined
  }
  const include = others.length === 0 ? idValue === 1 : others[0]?.[1] === 1
  const tree: PathTree = {}
  const paths = include ? others.map(([path]) => path) : others.map(([path]) => path)
  if (include ? idValue !== 0 : idValue === 0) paths.push('_id')
  for (const path of paths) {
    const segments = path.split('.')
    if (segments.some((segment) => segment === '' || /^\d+$/.test(segment) || segment.startsWith('$'))) return undefined
    let node = tree
    for (const [i, segment] of segments.entries()) {
      const existing = Object.hasOwn(node, segment) ? node[segment] : undefined
      if (i === segments.length - 1) {
        if (existing !== undefined) return undefined
        node[segment] = true
      } else {
        if (existing === true) return undefined
        node = node[segment] = existing ?? {}
      }
    }
  }
  return include
    ? (record) => including(tree, record) as StoredRecord
    : (record) => excluding(tree, record) as StoredRecord
}

const projectors = new Map<string, Projector | null>()
const PROJECTOR_CACHE_SIZE = 200

function projector(projection: Projection): Projector | undefined {
  const text = JSON.stringify(projection)
  let compiled = projectors.get(text)
  if (compiled === undefined) {
    compiled = compileProjection(projection) ?? null
    if (projectors.size >= PROJECTOR_CACHE_SIZE) projectors.delete(projectors.keys().next().value as string)
    projectors.set(text, compiled)
  }
  return compiled ?? undefined
}

export function project<T extends StoredRecord>(records: T[], projection: Projection | undefined): T[] {
  if (!projection) return records
  if (Object.keys(projection).length === 0) return records
  const compiled = projector(projection)
  if (!compiled) return mingoFind(records, {}, projection).all() as T[]
  const out = new Array<T>(records.length)
  for (let i = 0; i < records.length; i++) out[i] = compiled(records[i] as T) as T
  return out
}
