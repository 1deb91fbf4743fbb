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
 * scan and an in-memory sort always agree. Objects compare by their JSON text (an approximation that index keys
 * store: Mongo compares them field by field).
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

/** The value as `[tag, scalar]`, ordered by ordered-binary as `compareOperands` orders it (arrays: `sortOperand`). */
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

/** Strings in UTF-8 byte order (Mongo's, and the index keys'), without encoding them. */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // Below the surrogates, UTF-16 units order as code points do (and so as UTF-8 bytes do).
    if (x < 0xd800 && y < 0xd800) return x - y
    return Buffer.compare(Buffer.from(a), Buffer.from(b))
  }
  return a.length - b.length
}

/** A value as a sort compares it: `sortKey`'s `[tag, key]`, an array as `[array tag, its elements' operands]`. */
export type Operand = readonly [number, number | string | readonly Operand[]]

/** What an empty array sorts as, either way: below null and missing (Mongo's sort key for it is `undefined`). */
const EMPTY_ARRAY: Operand = [0, 0]

function operand(value: unknown): Operand {
  return Array.isArray(value) ? [TypeTag.array, value.map(operand)] : sortKey(value)
}

/** Mongo's order of two operands: by type, then by value (an array element by element, a prefix first). */
export function compareOperands(a: Operand, b: Operand): number {
  if (a[0] !== b[0]) return a[0] - b[0]
  const x = a[1]
  const y = b[1]
  if (typeof x === 'object') {
    const elements = y as readonly Operand[]
    for (let i = 0; i < Math.min(x.length, elements.length); i++) {
      const order = compareOperands(x[i] as Operand, elements[i] as Operand)
      if (order !== 0) return order
    }
    return x.length - elements.length
  }
  if (x === y) return 0
  return typeof x === 'string' ? compareText(x, y as string) : x < (y as number) ? -1 : 1
}

/**
 * What a sort in `direction` compares of a field's value (Mongo's sort on array fields): the value itself; of an
 * array, its least element ascending and its greatest descending, by the cross-type order (an element that is an
 * array counts whole, as an array); an empty array below null and missing, either way.
 */
export function sortOperand(value: unknown, direction: 1 | -1): Operand {
  if (!Array.isArray(value)) return sortKey(value)
  let chosen = EMPTY_ARRAY
  for (const [i, element] of value.entries()) {
    const candidate = operand(element)
    if (i === 0 || compareOperands(candidate, chosen) * direction < 0) chosen = candidate
  }
  return chosen
}

/** A record's operands of the sort's fields, to order it with `compareSortOperands`. */
export function sortOperands(fields: SortField[], record: StoredRecord): Operand[] {
  return fields.map(({ path, direction }) => sortOperand(getPath(record, path), direction))
}

export function compareSortOperands(fields: SortField[]): (a: Operand[], b: Operand[]) => number {
  return (a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const order = compareOperands(a[i] as Operand, b[i] as Operand)
      if (order !== 0) return order * (fields[i] as SortField).direction
    }
    return 0
  }
}
