import { getPath, TYPE_ALIASES, typeTag, TypeTag, type SortField } from './sort-order.js'
import type { Filter, StoredRecord } from './port.js'

/**
 * The Mongo filter matching exactly the records that come after `after` under `fields` (a normalized sort):
 * `$or` over each sort field of "all earlier fields equal, this one strictly after". Shared by the Mongo
 * adapter and the embedded adapter's in-memory plan, so both paginate identically. Comparison operators are
 * type-bracketed in Mongo, so "strictly after" also names the types that sort later.
 */
export function afterFilter(fields: SortField[], after: StoredRecord): Filter {
  const clauses: Filter[] = []
  const equal: Filter[] = []
  for (const { path, direction } of fields) {
    const value = getPath(after, path)
    const later = laterThan(path, value, direction)
    if (later !== undefined) clauses.push(equal.length === 0 ? later : { $and: [...equal, later] })
    equal.push({ [path]: value === undefined || value === null ? null : { $eq: value } })
  }
  return clauses.length === 0 ? { _id: { $in: [] } } : { $or: clauses }
}

function laterThan(path: string, value: unknown, direction: 1 | -1): Filter | undefined {
  const tag = typeTag(value)
  if (tag === TypeTag.nullish) return direction === 1 ? { [path]: { $ne: null } } : undefined
  const otherTypes = TYPE_ALIASES.filter(([other]) => (direction === 1 ? other > tag : other < tag)).map(
    ([, alias]) => alias,
  )
  const options: Filter[] = [{ [path]: direction === 1 ? { $gt: value } : { $lt: value } }]
  if (otherTypes.length > 0) options.push({ [path]: { $type: otherTypes } })
  if (direction === -1) options.push({ [path]: null })
  return options.length === 1 ? options[0] : { $or: options }
}
