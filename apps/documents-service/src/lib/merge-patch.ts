import type { DocumentFields } from '../collections.js'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `application/json` PATCH: top-level fields replaced as sent, `null` removes one. */
export function mergeFields(fields: DocumentFields, patch: DocumentFields): DocumentFields {
  const merged = { ...fields }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return merged
}

/**
 * `application/merge-patch+json` PATCH (RFC 7396): objects merge recursively, `null` removes a member, anything
 * else (arrays included) replaces the value. `target` is never changed.
 */
export function mergePatch(target: DocumentFields, patch: DocumentFields): DocumentFields {
  const merged = { ...target }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key]
    else if (isObject(value)) merged[key] = mergePatch(isObject(merged[key]) ? merged[key] : {}, value)
    else merged[key] = value
  }
  return merged
}
