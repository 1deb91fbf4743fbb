import { update as mingoUpdate } from 'mingo'
import { InvalidQueryError } from './errors.js'
import type { StoredRecord, Update } from './port.js'

/** True when the update is `$set` / `$unset` rather than a whole replacement. */
export function isModifier(
  update: Update,
): update is { $set?: Record<string, unknown>; $unset?: Record<string, true | 1 | ''> } {
  return Object.keys(update).some((key) => key.startsWith('$'))
}

/** The record after `update`, as Mongo would store it; `_id` never changes. */
export function applyUpdate(record: StoredRecord, update: Update): StoredRecord {
  // `_id` first, where Mongo puts it; assigning it again keeps that place and discards a replacement's own.
  if (!isModifier(update)) return Object.assign({ _id: record._id }, update, { _id: record._id })
  for (const key of Object.keys(update)) {
    if (key !== '$set' && key !== '$unset') throw new InvalidQueryError(`update operator ${key} is not supported`)
  }
  const touched = [...Object.keys(update.$set ?? {}), ...Object.keys(update.$unset ?? {})]
  if (touched.some((path) => path === '_id' || path.startsWith('_id.'))) {
    throw new InvalidQueryError('_id cannot be updated')
  }
  const set = update.$set ?? {}
  if (touched.every((path) => !path.includes('.') && path !== '__proto__')) {
    // Top-level fields only (the common case): a shallow copy is enough, since the fields replaced are the
    // only ones written and the rest are never mutated; mingo's update builds a whole context per call.
    const next: StoredRecord = { ...record }
    for (const path of Object.keys(set)) {
      const value = set[path]
      next[path] = value !== null && typeof value === 'object' ? structuredClone(value) : value
    }
    for (const path of Object.keys(update.$unset ?? {})) delete next[path]
    return next
  }
  const next = structuredClone(record)
  const unset = Object.fromEntries(Object.keys(update.$unset ?? {}).map((path) => [path, '' as const]))
  mingoUpdate(next, { $set: update.$set ?? {}, $unset: unset })
  return next
}
