import type { Attachment } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { DocumentFields } from '../collections.js'

/** Parsed `valuePath`: names step into objects, numbers into arrays. */
export type ValuePath = readonly (string | number)[]

type Container = Record<string, unknown> | unknown[]

const MAX_SEGMENTS = 32
const INDEX = /^(?:0|[1-9]\d{0,5})$/
const NAME = /^[\p{L}\p{N}][\p{L}\p{N}_-]{0,127}$/u
/** Top-level names the server owns or that hold something else than files. */
const RESERVED = new Set(['status', 'accessGroups', 'externalId'])
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

const invalid = (path: string, why: string) =>
  fail(
    'invalid_value_path',
    `valuePath "${path}" ${why}`,
    'The place given for the files is not valid for this document',
  )

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * `list.0.name` → `['list', 0, 'name']`. Names are letters, digits, `-` and `_` but never start with `_`
 * (system fields) and never name prototypes; the first one is never a field the server owns.
 */
export function parseValuePath(text: string): ValuePath {
  const segments = text.split('.')
  if (segments.length > MAX_SEGMENTS) throw invalid(text, `has more than ${MAX_SEGMENTS} segments`)
  if (INDEX.test(segments[0] ?? '')) throw invalid(text, 'must start with a field name')
  if (RESERVED.has(segments[0] ?? '')) throw invalid(text, `cannot be the system field "${segments[0]}"`)
  return segments.map((segment) => {
    if (INDEX.test(segment)) return Number(segment)
    if (segment === '') throw invalid(text, 'has an empty segment')
    if (FORBIDDEN.has(segment) || !NAME.test(segment)) {
      throw invalid(text, `has a segment "${segment}" that is not a field name or an index`)
    }
    return segment
  })
}

/** The child of `node` at `segment`, checking that the kind of segment fits the kind of container. */
function step(node: Container, segment: string | number, text: string): unknown {
  if (typeof segment === 'number') {
    if (!Array.isArray(node)) throw invalid(text, `indexes ${segment} into something that is not an array`)
    // Only the next free slot may be created: a gap would be ambiguous.
    if (segment > node.length) throw invalid(text, `skips array slots: index ${segment} of ${node.length} items`)
    return node[segment]
  }
  if (!isObject(node)) throw invalid(text, `names "${segment}" inside something that is not an object`)
  return Object.hasOwn(node, segment) ? node[segment] : undefined
}

function checkAttachments(value: unknown, text: string): Attachment[] {
  if (value === undefined || value === null) return []
  const isFile = (item: unknown) => isObject(item) && typeof item._id === 'string' && typeof item._fileName === 'string'
  if (!Array.isArray(value) || !value.every(isFile)) throw invalid(text, 'holds something else than attachments')
  return value as Attachment[]
}

/** The attachments at `path`; `[]` where nothing is yet. 400 when the path does not fit the document. */
export function attachmentsAt(fields: DocumentFields, path: ValuePath): Attachment[] {
  const text = path.join('.')
  let node: unknown = fields
  for (const segment of path) {
    if (node === undefined) return []
    if (typeof node !== 'object' || node === null) {
      throw invalid(text, 'goes through a value that is not an object or array')
    }
    node = step(node as Container, segment, text)
  }
  return checkAttachments(node, text)
}

/**
 * A copy of `fields` with the attachments at `path` replaced by `change(current)`. Missing objects and
 * arrays on the way are created (an array where the next segment is an index); anything else is 400.
 */
export function withAttachmentsAt(
  fields: DocumentFields,
  path: ValuePath,
  change: (current: Attachment[]) => Attachment[],
): DocumentFields {
  const text = path.join('.')
  const root = structuredClone(fields)
  let node: Container = root
  for (const [position, segment] of path.entries()) {
    const value = step(node, segment, text)
    const next = path[position + 1]
    if (next === undefined) {
      Reflect.set(node, segment, change(checkAttachments(value, text)))
    } else if (value === undefined) {
      const created: Container = typeof next === 'number' ? [] : {}
      Reflect.set(node, segment, created)
      node = created
    } else if (typeof value === 'object' && value !== null) {
      node = value as Container
    } else {
      throw invalid(text, 'goes through a value that is not an object or array')
    }
  }
  return root
}

/** Where the attachment with this `_id` sits, wherever that is in the document. */
function locate(node: unknown, id: string, depth: number): { list: unknown[]; index: number } | undefined {
  if (depth > MAX_SEGMENTS || typeof node !== 'object' || node === null) return undefined
  if (Array.isArray(node)) {
    const index = node.findIndex((item) => isObject(item) && item._id === id && typeof item._fileName === 'string')
    if (index >= 0) return { list: node, index }
  }
  for (const child of Object.values(node)) {
    const found = locate(child, id, depth + 1)
    if (found) return found
  }
  return undefined
}

export function findAttachment(fields: DocumentFields, id: string): Attachment | undefined {
  const found = locate(fields, id, 0)
  return found ? (found.list[found.index] as Attachment) : undefined
}

/** A copy of `fields` without the attachment; `undefined` when it is not there. */
export function withoutAttachment(fields: DocumentFields, id: string): DocumentFields | undefined {
  const root = structuredClone(fields)
  const found = locate(root, id, 0)
  if (!found) return undefined
  found.list.splice(found.index, 1)
  return root
}

/** What only the server writes in an attachment's metadata: a document write never changes these. */
const ATTACHMENT_SYSTEM_FIELDS = [
  '_id',
  '_fileName',
  '_size',
  '_contentType',
  '_sha256',
  'store',
  '_width',
  '_height',
  '_createdOn',
  '_createdByUserId',
] as const

/** Every attachment in `node`, by `_id`. */
function collectAttachments(node: unknown, found: Map<string, Attachment>, depth: number): Map<string, Attachment> {
  if (depth > MAX_SEGMENTS || typeof node !== 'object' || node === null) return found
  if (Array.isArray(node)) {
    for (const item of node) {
      if (isObject(item) && typeof item._id === 'string' && typeof item._fileName === 'string') {
        found.set(item._id, item as Attachment)
      }
    }
  }
  for (const child of Object.values(node)) collectAttachments(child, found, depth + 1)
  return found
}

/** The `_id`s of every attachment in `fields`, wherever they sit. */
export const attachmentIds = (fields: DocumentFields): Set<string> =>
  new Set(collectAttachments(fields, new Map(), 0).keys())

function restore(node: unknown, stored: Map<string, Attachment>, depth: number): void {
  if (depth > MAX_SEGMENTS || typeof node !== 'object' || node === null) return
  if (isObject(node) && typeof node._id === 'string') {
    const original = stored.get(node._id)
    if (original) {
      for (const field of ATTACHMENT_SYSTEM_FIELDS) {
        if (original[field] === undefined) delete node[field]
        else node[field] = original[field]
      }
      return
    }
  }
  for (const child of Object.values(node)) restore(child, stored, depth + 1)
}

/**
 * `next` (changed in place) with the system fields of every attachment `stored` holds put back as stored,
 * wherever the attachment now sits: size, type, hash and name describe the stored file, which never changes.
 * Attachments `next` adds (metadata of files saved with `shouldUpdateDocument=false`) are kept as sent.
 */
export function keepAttachmentFields(stored: DocumentFields, next: DocumentFields): DocumentFields {
  const attachments = collectAttachments(stored, new Map(), 0)
  if (attachments.size > 0) restore(next, attachments, 0)
  return next
}
