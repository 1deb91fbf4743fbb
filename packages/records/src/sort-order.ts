import type { Sort, StoredRecord } from './port.js'

/** One sort field, in order; `_id` is always the last one. */
export interface SortField {
  path: string
  direction: 1 | -1
}

/**
 * Appends the `_id` tie-breaker, in the direction of the last sort field, so a reversed index scan
 * serves a descending sort and every order is total (keyset pagination needs a total order).
 */
export function normalizeSort(sort: Sort | undefined): SortField[] {
  const fields: SortField[] = []
  for (const [path, direction] of Object.entries(sort ?? {})) {
    fields.push({ path, direction })
    if (path === '_id') return fields
  }
  fields.push({ path: '_id', direction: fields.at(-1)?.direction ?? 1 })
  return fields
}

/** Reads a dot path; numeric segments index arrays. */
export function getPath(record: unknown, path: string): unknown {
  let value: unknown = record
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<string, unknown>)[segment]
  }
  return value
}

/**
 * Mongo's cross-type order (null and missing sort together, then numbers, strings, objects, arrays,
 * booleans, dates). Tags are shared by the in-memory comparator and the embedded index keys, so an index
 * scan and an in-memory sort always agree. Objects and arrays compare by their JSON text (an approximation).
 */
export const TypeTag = { nullish: 1, number: 2, string: 3, object: 4, array: 5, boolean: 8, date: 9 } as const
type Tag = (typeof TypeTag)[keyof typeof TypeTag]

/** Mongo `$type` aliases of each tag, used to build keyset filters across types. */
export const TYPE_ALIASES: ReadonlyArray<readonly [Tag, string]> = [
  [TypeTag.number, 'number'],
  [TypeTag.string, 'string'],
  [TypeTag.object, 'object'],
  [TypeTag.array, 'array'],
  [TypeTag.boolean, 'bool'],
  [TypeTag.date, 'date'],
]

export function typeTag(value: unknown): Tag {
  if (value === null || value === undefined) return TypeTag.nullish
  if (typeof value === 'number') return TypeTag.number
  if (typeof value === 'string') return TypeTag.string
  if (typeof value === 'boolean') return TypeTag.boolean
  if (value instanceof Date) return TypeTag.date
  if (Array.isArray(value)) return TypeTag.array
  return TypeTag.object
}

/** The value as `[tag, scalar]`, ordered by ordered-binary exactly as `compareValues` orders values. */
export function sortKey(value: unknown): [Tag, number | string] {
  const tag = typeTag(value)
  switch (tag) {
    case TypeTag.nullish:
      return [tag, 0]
    case TypeTag.number:
      return [tag, Number.isNaN(value) ? -Infinity : (value as number) + 0] // + 0: -0 is 0 (ordered-binary garbles -0)
    case TypeTag.string:
      return [tag, value as string]
    case TypeTag.boolean:
      return [tag, value === true ? 1 : 0]
    case TypeTag.date:
      return [tag, (value as Date).getTime()]
    default:
      return [tag, JSON.stringify(value)]
  }
}

function compareValues(a: unknown, b: unknown): number {
  const [tagA, keyA] = sortKey(a)
  const [tagB, keyB] = sortKey(b)
  if (tagA !== tagB) return tagA - tagB
  if (keyA === keyB) return 0
  if (typeof keyA === 'string' && typeof keyB === 'string') return Buffer.compare(Buffer.from(keyA), Buffer.from(keyB))
  return keyA < keyB ? -1 : 1
}

export function compareRecords(fields: SortField[]): (a: StoredRecord, b: StoredRecord) => number {
  return (a, b) => {
    for (const { path, direction } of fields) {
      const order = compareValues(getPath(a, path), getPath(b, path))
      if (order !== 0) return order * direction
    }
    return 0
  }
}
