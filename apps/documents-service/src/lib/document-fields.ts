import { DOCUMENT_SYSTEM_FIELDS } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { DocumentFields } from '../collections.js'

const SYSTEM = new Set<string>(DOCUMENT_SYSTEM_FIELDS)
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_DEPTH = 32

/** Mongo cannot store `$` keys and reads dots as paths; prototype names are refused so nothing can pollute. */
function checkKeys(value: unknown, path: string, depth: number): void {
  if (value === null || typeof value !== 'object') return
  if (depth > MAX_DEPTH) throw fail('validation_error', `${path} is nested deeper than ${MAX_DEPTH} levels`)
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkKeys(item, `${path}/${index}`, depth + 1))
    return
  }
  for (const [key, inner] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(key) || key.startsWith('$') || key.includes('.') || key === '') {
      throw fail('validation_error', `${path}/${key} is not an allowed field name`)
    }
    checkKeys(inner, `${path}/${key}`, depth + 1)
  }
}

/** The client's fields with system fields dropped (ignored, never stored) and keys checked; 400 otherwise. */
export function userFields(body: DocumentFields): DocumentFields {
  checkKeys(body, 'body', 0)
  return userPart(body)
}

/** A document's fields but the system ones. */
export function userPart(document: DocumentFields): DocumentFields {
  const fields: DocumentFields = {}
  for (const [key, value] of Object.entries(document)) if (!SYSTEM.has(key)) fields[key] = value
  return fields
}
