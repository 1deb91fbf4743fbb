import { randomUUID } from 'node:crypto'
import type { Pagination } from '@quire/contracts'
import type { RecordText } from '@quire/records'
import { sha256 } from './sha256.js'

/**
 * Stored documents are answered as the JSON text the store keeps, without decoding and re-encoding them. That
 * rests on one invariant, pinned by test/lib/stored-text.test.ts: every write puts `_hash` last (`hashed`), and
 * the store keeps a record's keys in the order written, so a stored text ends with `,"_hash":"…"}`.
 */

/**
 * The embedded store LZ4-compresses record texts against this dictionary: the system fields every stored
 * document repeats, so a document takes about half the pages of its text. Part of the stored format: a data
 * dir records the dictionary it was first opened with, and this text must never change.
 */
export const RECORDS_COMPRESSION_DICTIONARY: Buffer = Buffer.from(
  JSON.stringify({
    _id: '000000000000000000000000',
    _createdOn: '2026-01-01T00:00:00.000Z',
    _createdByUserId: '000000000000000000000000',
    _lastModifiedOn: '2026-01-01T00:00:00.000Z',
    _lastModifiedByUserId: '000000000000000000000000',
    _documentDefinitionId: '000000000000000000000000',
    _environmentId: 'default',
    externalId: '',
    status: 'ready',
    accessGroups: [],
    _hash: '',
  }),
)

/**
 * System fields no one sorts documents by (ids, the hash): the embedded store's index entries name them without
 * their values, and carry the documents' own fields instead, which queries rank on. Recorded by a data dir's
 * first open, as the dictionary.
 */
export const RECORDS_UNCARRIED_FIELDS: readonly string[] = [
  '_createdByUserId',
  '_lastModifiedByUserId',
  '_documentDefinitionId',
  '_environmentId',
  '_hash',
]

const HASH_LENGTH = 32
const HASH_FIELD = ',"_hash":"'
const HASH_CHARACTERS = /^[\w-]+$/

/**
 * Sets `_hash`: new on every write (a write id goes in with the content), so equal content written twice still
 * differs. `record` is built with `_hash: ''` as its last key, so that its stored text ends with the hash.
 */
export function hashed<T extends { _hash: string }>(record: T): T {
  record._hash = sha256(randomUUID(), JSON.stringify(record)).slice(0, HASH_LENGTH)
  return record
}

/**
 * A stored document's `_hash`, read from its JSON text: a top-level `,"_hash":"…"}` whose value holds no quote
 * or backslash cannot be anything else. Text that does not end so (a record written another way) is parsed.
 */
export function storedHash(json: string): string {
  const start = json.length - 2 - HASH_LENGTH
  const value = json.slice(start, -2)
  if (json.startsWith(HASH_FIELD, start - HASH_FIELD.length) && json.endsWith('"}') && HASH_CHARACTERS.test(value)) {
    return value
  }
  return (JSON.parse(json) as { _hash: string })._hash
}

/** A computed field (`"name":value` text) appended to an object's JSON text, as its last one. */
export const withField = (json: string, field: string): string => `${json.slice(0, -1)},${field}}`

/** A JSON array of records' texts. */
export const arrayText = (items: readonly RecordText[]): string => `[${items.map((item) => item.json).join(',')}]`

/** A list's answer, `{"status":"ok","data":[…],"pagination":…}`, around the records' texts as they are. */
export const pageText = (items: readonly RecordText[], pagination: Pagination): string =>
  `{"status":"ok","data":${arrayText(items)},"pagination":${JSON.stringify(pagination)}}`
