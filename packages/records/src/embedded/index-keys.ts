import { compileFilter, type Matcher } from '../match.js'
import { getPath, sortKey } from '../sort-order.js'
import type { IndexSpec, StoredRecord } from '../port.js'

/** Sorts after every tag (numbers) and every hex `_id` in ordered-binary, so it closes a key range. */
export const KEY_END = '\uffff'

export type IndexKey = Array<number | string>

/** The entry format of indexes built by this version: one entry per distinct array element (Mongo's multikey). */
export const ELEMENT_KEYS = 2

/**
 * A persisted index definition. `multikey` once any record stored an array along an indexed path.
 * Indexes without `format` were built by an older version (one entry per record, arrays keyed whole) and are
 * never used to plan; `ensureIndex` rebuilds them in the current format.
 */
export interface StoredIndex {
  spec: IndexSpec
  multikey: boolean
  format?: typeof ELEMENT_KEYS
  /** The indexed paths along which some record stored an array. */
  multikeyPaths?: string[]
  /** Some record holds arrays that keys cannot mirror (arrays of arrays, a numeric path segment into an array). */
  opaque?: boolean
}

/** A record's entries in one index (each `[tag, value, ...]`, `_id` not included), and what they revealed. */
export interface IndexEntries {
  keys: IndexKey[]
  arrayPaths: string[]
  opaque: boolean
}

/** Legacy entries: `[tag, value, tag, value, ...]` of each field's whole value. */
export function indexValues(spec: IndexSpec, record: StoredRecord): IndexKey {
  return Object.keys(spec.fields).flatMap((path) => sortKey(getPath(record, path)))
}

export function valuesKey(values: unknown[]): IndexKey {
  return values.flatMap((value) => sortKey(value))
}

function hasArrayValue(spec: IndexSpec, record: StoredRecord): boolean {
  return Object.keys(spec.fields).some((path) => Array.isArray(getPath(record, path)))
}

interface Expansion {
  values: unknown[]
  array: boolean
  opaque: boolean
}

/** The values a Mongo equality on `path` compares against: array elements, and each element's field along the path. */
function expand(value: unknown, segments: string[], at: number, out: Expansion): void {
  if (Array.isArray(value)) {
    out.array = true
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

/** The record's entries: the cartesian product of each field's distinct values (one entry when no arrays). */
export function indexEntries(stored: StoredIndex, record: StoredRecord): IndexEntries {
  const { spec } = stored
  if (stored.format !== ELEMENT_KEYS) {
    return { keys: [indexValues(spec, record)], arrayPaths: hasArrayValue(spec, record) ? Object.keys(spec.fields) : [], opaque: false }
  }
  let keys: IndexKey[] = [[]]
  const arrayPaths: string[] = []
  let opaque = false
  for (const path of Object.keys(spec.fields)) {
    const out: Expansion = { values: [], array: false, opaque: false }
    expand(record, path.split('.'), 0, out)
    if (out.array) arrayPaths.push(path)
    opaque ||= out.opaque
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
  return JSON.stringify([a.fields, a.unique === true, a.partial ?? null]) === JSON.stringify([b.fields, b.unique === true, b.partial ?? null])
}
