import { Query } from 'mingo'
import { getPath, sortKey } from '../sort-order.js'
import type { IndexSpec, StoredRecord } from '../port.js'

/** Sorts after every tag (numbers) and every hex `_id` in ordered-binary, so it closes a key range. */
export const KEY_END = '\uffff'

export type IndexKey = Array<number | string>

/** A persisted index definition; `multikey` once any record stored an array in an indexed field. */
export interface StoredIndex {
  spec: IndexSpec
  multikey: boolean
}

/** Index entries are `[tag, value, tag, value, ..., _id]`; ascending regardless of the spec's directions. */
export function indexValues(spec: IndexSpec, record: StoredRecord): IndexKey {
  return Object.keys(spec.fields).flatMap((path) => sortKey(getPath(record, path)))
}

export function valuesKey(values: unknown[]): IndexKey {
  return values.flatMap((value) => sortKey(value))
}

export function hasArrayValue(spec: IndexSpec, record: StoredRecord): boolean {
  return Object.keys(spec.fields).some((path) => Array.isArray(getPath(record, path)))
}

const partialQueries = new WeakMap<IndexSpec, Query>()

/** Whether the record belongs in the index (partial indexes hold only matching records). */
export function isIndexed(spec: IndexSpec, record: StoredRecord): boolean {
  if (!spec.partial) return true
  let query = partialQueries.get(spec)
  if (!query) {
    query = new Query(spec.partial)
    partialQueries.set(spec, query)
  }
  return query.test(record)
}

export function sameSpec(a: IndexSpec, b: IndexSpec): boolean {
  return JSON.stringify([a.fields, a.unique === true, a.partial ?? null]) === JSON.stringify([b.fields, b.unique === true, b.partial ?? null])
}
