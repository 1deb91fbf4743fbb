import type { StoredRecord } from '../port.js'
import { sortKey, TypeTag } from '../sort-order.js'
import type { SortValue } from './sort-values.js'

/**
 * A record's top-level scalar fields, carried in the value of each of its entries in a non-unique index (which
 * is otherwise `null`), as PostgreSQL's `INCLUDE` carries columns: a query that walks an index's entries to rank
 * candidates on another field (`ranked-entries.ts`) reads that field off the entry it stands on, a step along
 * pages already read, instead of a random lookup of the whole record. Flattened for a small msgpack encoding:
 * `[complete, name, tag, key, name, tag, key, ...]`, each `tag, key` as `sortKey` gives it for the value the
 * record's stored text holds; `NOT_CARRIED, 0` for a field whose value is not carried (an object, an array, a
 * long string, past the size cap). `complete` is 1 when every top-level field is listed: a field not listed is
 * then missing from the record; otherwise only the record can tell.
 *
 * Entries written before this (or by a build that left a record out) hold `null`, and a reader falls back to the
 * record: an existing data directory is answered right with no migration. Older code reads non-unique entries'
 * keys only, so it ignores the values (a downgrade is safe too). But older code does not keep them either: an
 * update it makes leaves the entries' values as they were. The engine tells (`#reconcileCarried`: older code's
 * writes drop a mark from the collection's size) and then ranks that collection's indexes off their records
 * until `ensureIndex` has written their values again, so no stale value is ever ranked on.
 */
export type Covered = Array<number | string>

/**
 * The bytes an entry's value may take (about, as msgpack encodes it): room for a stored document's system fields
 * (the uncarried ones by name only) and a dozen short fields of its own.
 */
const MAX_COVERED_BYTES = 384
/**
 * Longer strings are not carried (a sort on them reads the records): entries are walked for their values, so
 * their bytes are paid on every walk and in memory. At 100,000 records of the bench's shape with two non-unique
 * indexes, the store took 54 MB without values, 92 MB carrying strings up to 64 characters, 79 MB up to 32.
 */
const MAX_CARRIED_STRING = 32
const NOT_CARRIED = 0
/** msgpack: a string's header, a float64 number. */
const STRING_OVERHEAD = 2
const NUMBER_BYTES = 9

/** The value as the record's stored text holds it (`JSON.stringify`: a Date as its ISO text, NaN as null). */
function storedScalar(value: unknown): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toJSON()
  if (typeof value === 'number' && !Number.isFinite(value)) return null
  return value
}

/**
 * `uncarried`: fields listed by name only, whatever their value, so that the room goes to fields queries rank on
 * (the store's caller knows its ids and stamps no query sorts by). Listed, not left out, so that an entry still
 * tells that a field it does not list is missing from the record.
 */
export function coveredFields(record: StoredRecord, uncarried?: ReadonlySet<string>): Covered {
  const covered: Covered = [1]
  let bytes = 3
  for (const [name, raw] of Object.entries(record)) {
    // `_id` is in every entry's key; a value `undefined` is not in the stored text (as a missing field).
    if (name === '_id' || raw === undefined) continue
    const nameBytes = Buffer.byteLength(name) + STRING_OVERHEAD
    const value = uncarried?.has(name) ? undefined : storedScalar(raw)
    let carried: SortValue | undefined
    let valueBytes = 1
    if (typeof value === 'string') {
      // msgpack's UTF-8 makes a lone surrogate U+FFFD: `compareText` compares such strings as UTF-8 too.
      if (value.length <= MAX_CARRIED_STRING) {
        carried = [TypeTag.string, value]
        valueBytes = Buffer.byteLength(value) + STRING_OVERHEAD
      }
    } else if (value === null || typeof value === 'number' || typeof value === 'boolean') {
      carried = sortKey(value)
      if (typeof value === 'number') valueBytes = NUMBER_BYTES
    }
    if (carried && bytes + nameBytes + 1 + valueBytes <= MAX_COVERED_BYTES) {
      covered.push(name, carried[0], carried[1])
      bytes += nameBytes + 1 + valueBytes
    } else if (bytes + nameBytes + 2 <= MAX_COVERED_BYTES) {
      covered.push(name, NOT_CARRIED, 0)
      bytes += nameBytes + 2
    } else {
      covered[0] = 0
    }
  }
  return covered
}

/**
 * The sort value of `path` an entry's value carries, or undefined when the record must be read: the value is
 * `null` (an older entry), the path is nested, or the field is not carried.
 */
export function coveredValue(covered: unknown, path: string): SortValue | undefined {
  if (!Array.isArray(covered) || path.includes('.')) return undefined
  for (let i = 1; i < covered.length; i += 3) {
    if (covered[i] !== path) continue
    const tag = covered[i + 1] as number
    return tag === NOT_CARRIED ? undefined : [tag, covered[i + 2] as number | string]
  }
  return covered[0] === 1 ? sortKey(undefined) : undefined
}

export function sameCovered(a: Covered | null, b: Covered | null): boolean {
  return a === b || (a !== null && b !== null && a.length === b.length && a.every((part, i) => part === b[i]))
}
