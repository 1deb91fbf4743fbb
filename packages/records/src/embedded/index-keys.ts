import { compileFilter, type Matcher } from '../match.js'
import { sortKey } from '../sort-order.js'
import { ParallelArraysError } from '../errors.js'
import type { IndexSpec, StoredRecord } from '../port.js'

/** Sorts after every tag (numbers) and every hex `_id` in ordered-binary, so it closes a key range. */
export const KEY_END = '\uffff'

export type IndexKey = Array<number | string>

/**
 * Entries of an index: `[...values, _id] → null`, one per distinct array element of the record (Mongo's
 * multikey); in a unique index `[...values] → _id`: values name at most one record, so a lookup or a uniqueness
 * check is one read instead of a range scan.
 */
export const keyedByValues = (stored: StoredIndex): boolean => stored.spec.unique === true

/** A persisted index definition. `multikey` once any record stored an array along an indexed path. */
export interface StoredIndex {
  spec: IndexSpec
  multikey: boolean
  /** The indexed paths along which some record stored an array. */
  multikeyPaths?: string[]
  /** Some record holds arrays that keys cannot mirror (arrays of arrays, a numeric path segment into an array). */
  opaque?: boolean
}

/** A record's entry keys in one index (each `[tag, value, ...]`, without `_id`), and what they revealed. */
export interface IndexEntries {
  keys: IndexKey[]
  arrayPaths: string[]
  opaque: boolean
}

export function valuesKey(values: unknown[]): IndexKey {
  return values.flatMap((value) => sortKey(value))
}

/** Orders keys as ordered-binary does: part by part, numbers before strings, strings by UTF-8, a prefix first. */
export function compareKeys(a: IndexKey, b: IndexKey): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]
    const y = b[i]
    if (x === y) continue
    if (typeof x === 'string' && typeof y === 'string') return Buffer.compare(Buffer.from(x), Buffer.from(y))
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1
    return (x as number) < (y as number) ? -1 : 1
  }
  return a.length - b.length
}

interface Expansion {
  values: unknown[]
  /** Where along the path the first array was met (`a.b` for `{a: {b: [...]}}`); undefined without one. */
  arrayAt: string | undefined
  opaque: boolean
}

/** The values a Mongo equality on `path` compares against: array elements, and each element's field along the path. */
function expand(value: unknown, segments: string[], at: number, out: Expansion): void {
  if (Array.isArray(value)) {
    out.arrayAt ??= segments.slice(0, at).join('.')
    if (at === segments.length) {
      if (value.length === 0) out.values.push(value)
      for (const element of value) {
        if (Array.isArray(element)) out.opaque = true
        out.values.push(element)
      }
      return
    }
    if (/^\d+$/.test(segments[at] ?? '')) out.opaque = true
    if (value.length === 0) out.values.push(undefined)
    for (const element of value) {
      if (Array.isArray(element)) {
        out.opaque = true
        out.values.push(undefined)
      } else {
        expand(element, segments, at, out)
      }
    }
    return
  }
  if (at === segments.length) {
    out.values.push(value)
    return
  }
  if (value === null || typeof value !== 'object' || value instanceof Date) {
    out.values.push(undefined)
    return
  }
  expand((value as Record<string, unknown>)[segments[at] ?? ''], segments, at + 1, out)
}

/**
 * The record's entries: the product of each field's distinct values (one entry when no arrays). Fields may reach
 * into one array (`items.sku` and `items.qty`), not into two (`tags` and `sizes`): that product is what MongoDB
 * refuses to index, and a record could make it grow without bound.
 */
export function indexEntries(spec: IndexSpec, record: StoredRecord): IndexEntries {
  let keys: IndexKey[] = [[]]
  const arrayPaths: string[] = []
  let arrayAt: { path: string; at: string } | undefined
  let opaque = false
  for (const path of Object.keys(spec.fields)) {
    const out: Expansion = { values: [], arrayAt: undefined, opaque: false }
    expand(record, path.split('.'), 0, out)
    if (out.arrayAt !== undefined) {
      arrayPaths.push(path)
      if (arrayAt && arrayAt.at !== out.arrayAt) throw new ParallelArraysError(spec.name, [arrayAt.path, path])
      arrayAt ??= { path, at: out.arrayAt }
    }
    opaque ||= out.opaque
    if (out.values.length === 1) {
      // One value (no array along the path, the common case): nothing to make distinct.
      const [tag, value] = sortKey(out.values[0])
      for (const key of keys) key.push(tag, value)
      continue
    }
    const distinct = new Map<string, [number, number | string]>()
    for (const value of out.values) {
      const key = sortKey(value)
      distinct.set(JSON.stringify(key), key)
    }
    const next: IndexKey[] = []
    for (const key of keys) for (const pair of distinct.values()) next.push([...key, ...pair])
    keys = next
  }
  return { keys, arrayPaths, opaque }
}

/** Whether the record belongs in the index (partial indexes hold only matching records). */
export function isIndexed(spec: IndexSpec, record: StoredRecord): boolean {
  return !spec.partial || partialMatcher(spec).test(record)
}

const partialMatchers = new WeakMap<IndexSpec, Matcher>()

/** The compiled partial filter, kept with the (cached, read-only) definition: no filter text per call. */
export function partialMatcher(spec: IndexSpec): Matcher {
  let matcher = partialMatchers.get(spec)
  if (!matcher) {
    matcher = compileFilter(spec.partial ?? {})
    partialMatchers.set(spec, matcher)
  }
  return matcher
}

export function sameSpec(a: IndexSpec, b: IndexSpec): boolean {
  return (
    JSON.stringify([a.fields, a.unique === true, a.partial ?? null]) ===
    JSON.stringify([b.fields, b.unique === true, b.partial ?? null])
  )
}
