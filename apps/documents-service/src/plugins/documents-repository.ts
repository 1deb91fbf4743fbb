import { hash, randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import {
  DOCUMENT_SYSTEM_FIELDS,
  type DefinitionRecord,
  type Document,
  type DocumentRecord,
  type IndexDeclaration,
  type Pagination,
  type Permissions,
} from '@quire/contracts'
import {
  ConflictError,
  DuplicateKeyError,
  InvalidQueryError,
  newObjectId,
  type Collection,
  type Filter,
  type IndexSpec,
  type RecordStore,
  type RecordText,
  type StoredRecord,
} from '@quire/records'
import { ApiError, fail } from '@quire/service-kit'
import { validateFields } from './field-validators.js'
import { nextPageQuery, type ListQuery } from './list-query.js'
import { permissionsOf, type Scope } from './scope.js'

/** User fields of a document: everything but the system fields. */
export type DocumentFields = Record<string, unknown>

/** Told after a document (or, with `document` absent, every document of a definition) is removed. */
export type RemovalListener = (removed: { definition: DefinitionRecord; document?: DocumentRecord }) => Promise<void>

export interface DocumentsRepository {
  /** Where a definition's documents live: one collection per definition, so environments never share one. */
  collectionName(definition: Pick<DefinitionRecord, '_id' | '_environmentId'>): string
  /** `data` is the page as JSON text: stored documents are answered without decoding and re-encoding them. */
  list(scope: Scope, definition: DefinitionRecord, query: ListQuery): Promise<{ data: string; pagination: Pagination }>
  /** By `_id`, then by `externalId`; 404 `document_not_found` when neither is visible to the caller. */
  get(scope: Scope, definition: DefinitionRecord, id: string): Promise<Document>
  /** `get` as the document's JSON text, `_permissions` included, with its `_hash`: sent without decoding it. */
  read(scope: Scope, definition: DefinitionRecord, id: string): Promise<{ json: string; hash: string }>
  /** With an idempotency key, a retry with the same body returns the first result and creates nothing. */
  create(
    scope: Scope,
    definition: DefinitionRecord,
    body: DocumentFields,
    idempotencyKey?: string,
  ): Promise<{ document: Document; replayed: boolean }>
  replace(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    body: DocumentFields,
    ifMatch?: string,
  ): Promise<Document>
  /** JSON merge patch of top-level fields: `null` removes one. */
  patch(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    patch: DocumentFields,
    ifMatch?: string,
  ): Promise<Document>
  /**
   * Read-modify-write: `change` gets the current user fields and returns the new ones; retried on a
   * concurrent write unless `ifMatch` pins the version (then 412). Attachments build on this.
   */
  modify(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    change: (fields: DocumentFields) => DocumentFields,
    ifMatch?: string,
  ): Promise<Document>
  remove(scope: Scope, definition: DefinitionRecord, id: string, ifMatch?: string): Promise<DocumentRecord>
  /** Hook point for what documents own outside the records store (attachment files). */
  onRemove(listener: RemovalListener): void
  /** Creates or drops the collection's indexes so they match the definition's declared `indexes`. */
  syncIndexes(definition: DefinitionRecord, previous?: IndexDeclaration[]): Promise<void>
  countAll(definition: DefinitionRecord): Promise<number>
  dropAll(definition: DefinitionRecord): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    documents: DocumentsRepository
  }
}

const SYSTEM = new Set<string>(DOCUMENT_SYSTEM_FIELDS)
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype'])
const MAX_DEPTH = 32
/** Unpinned writes merge again onto a newer version; each round one writer wins, so this bounds contention. */
const MAX_WRITE_ATTEMPTS = 16
const IDEMPOTENCY_KEYS = 'idempotency_keys'
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
const EXTERNAL_ID_INDEX: IndexSpec = {
  name: 'externalId',
  fields: { externalId: 1 },
  unique: true,
  partial: { externalId: { $exists: true } },
}

interface IdempotencyRecord extends StoredRecord {
  _hash: string
  bodyHash: string
  document: DocumentRecord
  expiresOn: string
}

/** Each part NUL-terminated, so the parts' boundaries are part of what is hashed. */
const sha256 = (...parts: string[]): string => hash('sha256', `${parts.join('\0')}\0`, 'base64url')

const HASH_LENGTH = 32
const HASH_FIELD = ',"_hash":"'
const HASH_CHARACTERS = /^[\w-]+$/

/**
 * Sets `_hash`: new on every write (a write id goes in with the content), so equal content written twice
 * still differs.
 */
function hashed(record: DocumentRecord): DocumentRecord {
  record._hash = sha256(randomUUID(), JSON.stringify({ ...record, _hash: '' })).slice(0, HASH_LENGTH)
  return record
}

/**
 * A stored document's `_hash`, read from its JSON text. Writes put `_hash` last, so the text ends with it: a
 * top-level `,"_hash":"…"}` whose value holds no quote or backslash cannot be anything else. Text that does not
 * end so (a record written another way) is parsed.
 */
function hashOf(json: string): string {
  const start = json.length - 2 - HASH_LENGTH
  const hash = json.slice(start, -2)
  if (json.startsWith(HASH_FIELD, start - HASH_FIELD.length) && json.endsWith('"}') && HASH_CHARACTERS.test(hash)) {
    return hash
  }
  return (JSON.parse(json) as DocumentRecord)._hash
}

/** A computed field appended to a document's JSON text, as the last one. */
const appendField = (json: string, field: string): string => `${json.slice(0, -1)},${field}}`
/** Each role's frozen permissions as JSON text, serialized once instead of on every get and list. */
const permissionsTexts = new WeakMap<Permissions, string>()
/** The caller's `_permissions` (computed, never stored) as a field of JSON text. */
function permissionsField(scope: Scope): string {
  const permissions = permissionsOf(scope)
  let text = permissionsTexts.get(permissions)
  if (text === undefined) permissionsTexts.set(permissions, (text = JSON.stringify(permissions)))
  return `"_permissions":${text}`
}

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

/** The client's fields with system fields dropped (ignored, never stored) and keys checked. */
function userFields(body: DocumentFields): DocumentFields {
  checkKeys(body, 'body', 0)
  const fields: DocumentFields = {}
  for (const [key, value] of Object.entries(body)) if (!SYSTEM.has(key)) fields[key] = value
  return fields
}

function userPart(record: DocumentRecord): DocumentFields {
  const fields: DocumentFields = {}
  for (const [key, value] of Object.entries(record)) if (!SYSTEM.has(key)) fields[key] = value
  return fields
}

/**
 * Members see documents without access groups or sharing one of their groups; administrators see all. A filter,
 * so that a page is filled with visible documents only and a single document is read with the rule applied.
 */
function visibilityFilter(scope: Scope): Filter | undefined {
  if (scope.administrator) return undefined
  // No first group: empty, or missing or null in a record this API did not write.
  const noGroups = { 'accessGroups.0': { $exists: false } }
  return scope.groups.length === 0 ? noGroups : { $or: [noGroups, { accessGroups: { $in: [...scope.groups] } }] }
}

/** Adds `extra` with `$and`, keeping the client's top-level equalities where an index planner sees them. */
function withCondition(filter: Filter, extra: Filter | undefined): Filter {
  if (!extra) return filter
  const and = Array.isArray(filter.$and) ? filter.$and : []
  return { ...filter, $and: [...and, extra] }
}

const present = (scope: Scope, record: DocumentRecord): Document => ({ ...record, _permissions: permissionsOf(scope) })

/** `_permissions` is computed, so it goes on a listed item unless the projection leaves it out. */
function keepsPermissions(query: ListQuery): boolean {
  const { projection } = query
  const including = Object.values(projection).includes(1)
  return including ? projection._permissions === 1 : projection._permissions !== 0
}

const projects = (query: ListQuery) => Object.keys(query.projection).length > 0

/** `If-Match`: `*`, or a list of (possibly weak, quoted) entity tags. */
function ifMatchAccepts(header: string, hash: string): boolean {
  return header.split(',').some((tag) => {
    const value = tag
      .trim()
      .replace(/^W\//, '')
      .replace(/^"(.*)"$/, '$1')
    return value === '*' || value === hash
  })
}

const notFound = (definition: DefinitionRecord, id: string) =>
  fail('document_not_found', `No document "${id}" in definition "${definition.name}"`, 'The document does not exist')

const changed = (id: string) =>
  fail(
    'precondition_failed',
    `Document "${id}" changed since the given If-Match version`,
    'The document was changed by someone else; reload it',
  )

function declaredIndex(declaration: IndexDeclaration): IndexSpec {
  const key = Object.entries(declaration.fields)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_')
  return {
    name: `dd_${key}${declaration.unique ? '_unique' : ''}`,
    fields: declaration.fields,
    unique: declaration.unique ?? false,
  }
}

/** Unique-index violations on document writes: the external id, or a unique index the definition declares. */
function duplicate(error: DuplicateKeyError, fields: DocumentFields): ApiError {
  if (error.index === EXTERNAL_ID_INDEX.name) {
    return fail(
      'duplicate_external_id',
      `externalId "${String(fields.externalId)}" is already used in this definition`,
      'Another document already has this external id',
    )
  }
  return fail('validation_error', `body: another document has the same values for unique index ${error.index}`)
}

export function documentsRepository(store: RecordStore): DocumentsRepository {
  const idempotencyKeys = store.collection<IdempotencyRecord>(IDEMPOTENCY_KEYS)
  const listeners: RemovalListener[] = []

  const collectionName = (definition: Pick<DefinitionRecord, '_id' | '_environmentId'>) =>
    `documents.${definition._environmentId}.${definition._id}`
  const collectionOf = (definition: DefinitionRecord): Collection<DocumentRecord> =>
    store.collection<DocumentRecord>(collectionName(definition))

  /** By `_id`, then by `externalId`, among the documents the caller may see; `first` reads the filter's match. */
  async function lookup<T>(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    first: (filter: Filter) => Promise<T | undefined>,
  ): Promise<T> {
    const visibility = visibilityFilter(scope)
    const found =
      (await first(withCondition({ _id: id }, visibility))) ??
      (await first(withCondition({ externalId: id }, visibility)))
    if (found === undefined) throw notFound(definition, id)
    return found
  }

  const find = (scope: Scope, definition: DefinitionRecord, id: string): Promise<DocumentRecord> =>
    lookup(scope, definition, id, async (filter) => (await collectionOf(definition).findOne(filter)) ?? undefined)

  function newRecord(scope: Scope, definition: DefinitionRecord, fields: DocumentFields): DocumentRecord {
    const now = new Date().toISOString()
    const record: DocumentRecord = {
      _id: newObjectId(),
      _createdOn: now,
      _createdByUserId: scope.userId,
      _lastModifiedOn: now,
      _lastModifiedByUserId: scope.userId,
      _documentDefinitionId: definition._id,
      _environmentId: definition._environmentId,
      ...fields,
      status: typeof fields.status === 'string' ? fields.status : 'ready',
      accessGroups: Array.isArray(fields.accessGroups) ? (fields.accessGroups as string[]) : [],
      _hash: '',
    }
    validateFields(definition, record)
    return hashed(record)
  }

  async function insert(definition: DefinitionRecord, record: DocumentRecord): Promise<void> {
    try {
      await collectionOf(definition).insertOne(record)
    } catch (error) {
      throw error instanceof DuplicateKeyError ? duplicate(error, record) : error
    }
  }

  async function createOnce(scope: Scope, definition: DefinitionRecord, body: DocumentFields, key: string) {
    const keyId = sha256(definition._environmentId, definition._id, scope.userId, key)
    const bodyHash = sha256(JSON.stringify(body))
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const previous = await idempotencyKeys.findOne({ _id: keyId })
      if (previous && Date.parse(previous.expiresOn) > Date.now()) {
        if (previous.bodyHash !== bodyHash) {
          throw new ApiError(
            'validation_error',
            'headers/idempotency-key was already used with a different body',
            'This request was already sent with other data',
            422,
          )
        }
        return { document: present(scope, previous.document), replayed: true }
      }
      const record = newRecord(scope, definition, userFields(body))
      try {
        // The document and its key commit together: a racing retry either sees the key or conflicts.
        await store.transaction(async (tx) => {
          const keys = tx.collection<IdempotencyRecord>(IDEMPOTENCY_KEYS)
          if (previous) await keys.deleteOne({ _id: keyId }, { expectedHash: previous._hash })
          await tx.collection<DocumentRecord>(collectionName(definition)).insertOne(record)
          const expiresOn = new Date(Date.now() + IDEMPOTENCY_TTL_MS).toISOString()
          await keys.insertOne({ _id: keyId, _hash: record._hash, bodyHash, document: record, expiresOn })
        })
        return { document: present(scope, record), replayed: false }
      } catch (error) {
        if (error instanceof ConflictError || (error instanceof DuplicateKeyError && error.index === '_id_')) continue
        throw error instanceof DuplicateKeyError ? duplicate(error, record) : error
      }
    }
    throw changed(key)
  }

  async function modify(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    change: (fields: DocumentFields) => DocumentFields,
    ifMatch?: string,
  ): Promise<Document> {
    const documents = collectionOf(definition)
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await find(scope, definition, id)
      if (ifMatch !== undefined && !ifMatchAccepts(ifMatch, current._hash)) throw changed(id)
      const fields = userFields(change(userPart(current)))
      const now = new Date().toISOString()
      const next: DocumentRecord = {
        _id: current._id,
        _createdOn: current._createdOn,
        _createdByUserId: current._createdByUserId,
        _lastModifiedOn: now,
        _lastModifiedByUserId: scope.userId,
        _documentDefinitionId: current._documentDefinitionId,
        _environmentId: current._environmentId,
        ...fields,
        status: typeof fields.status === 'string' ? fields.status : 'ready',
        accessGroups: Array.isArray(fields.accessGroups) ? (fields.accessGroups as string[]) : [],
        _hash: '',
      }
      validateFields(definition, next)
      const { _id, ...replacement } = hashed(next)
      try {
        const updated = await documents.updateOne({ _id }, replacement, { expectedHash: current._hash })
        if (!updated) throw notFound(definition, id)
        return present(scope, updated)
      } catch (error) {
        if (error instanceof DuplicateKeyError) throw duplicate(error, fields)
        // Someone wrote in between: a pinned version lost; otherwise merge again onto the newer one.
        if (!(error instanceof ConflictError) || ifMatch !== undefined) {
          throw error instanceof ConflictError ? changed(id) : error
        }
      }
    }
    throw changed(id)
  }

  return {
    collectionName,

    async list(scope, definition, query) {
      const documents = collectionOf(definition)
      const visibility = visibilityFilter(scope)
      const filter = withCondition(query.filter, visibility)
      // A member may not page from a document hidden from them: its position would leak its values.
      if (
        query.after !== undefined &&
        visibility &&
        !(await documents.findOne(withCondition({ _id: query.after }, visibility), { projection: { _id: 1 } }))
      ) {
        throw fail('invalid_query', `after: no document ${query.after}`, 'The list parameter "after" is not valid')
      }
      const options = { sort: query.sort, skip: query.skip, limit: query.limit + 1, after: query.after }
      const permissions = keepsPermissions(query) ? permissionsOf(scope) : undefined
      let items: RecordText[]
      try {
        if (projects(query)) {
          // Projected records are this call's own copies: `_permissions` goes onto them before they are serialized.
          const records = await documents.find(filter, { ...options, projection: query.projection })
          items = records.map((record) => ({
            _id: record._id,
            json: JSON.stringify(permissions ? Object.assign(record, { _permissions: permissions }) : record),
          }))
        } else {
          // Whole documents as stored (never empty: `_id` at least), `_permissions` appended as their last field.
          const field = permissions ? permissionsField(scope) : undefined
          items = (await documents.findText(filter, options)).map((item) =>
            field ? { _id: item._id, json: appendField(item.json, field) } : item,
          )
        }
      } catch (error) {
        if (error instanceof InvalidQueryError) {
          throw fail('invalid_query', error.message, 'The list parameters are not valid')
        }
        throw error
      }
      const hasNext = items.length > query.limit
      if (hasNext) items.length = query.limit
      const last = items.at(-1)
      const pagination: Pagination = {
        hasPrevious: query.after !== undefined || query.skip > 0,
        hasNext,
        type: 'cursor',
      }
      if (hasNext && last) pagination.next = nextPageQuery(query, last._id)
      if (query.count) pagination.total = await documents.count(filter)
      return { data: `[${items.map((item) => item.json).join(',')}]`, pagination }
    },

    async get(scope, definition, id) {
      // The record is this call's own decoded copy, as in `list`: `_permissions` goes onto it, not onto a copy.
      return Object.assign(await find(scope, definition, id), { _permissions: permissionsOf(scope) })
    },

    async read(scope, definition, id) {
      const documents = collectionOf(definition)
      const found = await lookup(
        scope,
        definition,
        id,
        async (filter) => (await documents.findText(filter, { limit: 1 }))[0],
      )
      return { json: appendField(found.json, permissionsField(scope)), hash: hashOf(found.json) }
    },

    async create(scope, definition, body, idempotencyKey) {
      if (idempotencyKey !== undefined) return createOnce(scope, definition, body, idempotencyKey)
      const record = newRecord(scope, definition, userFields(body))
      await insert(definition, record)
      return { document: present(scope, record), replayed: false }
    },

    replace(scope, definition, id, body, ifMatch) {
      return modify(scope, definition, id, () => body, ifMatch)
    },

    patch(scope, definition, id, patch, ifMatch) {
      return modify(
        scope,
        definition,
        id,
        (fields) => {
          const merged = { ...fields }
          for (const [key, value] of Object.entries(patch)) {
            if (value === null) delete merged[key]
            else merged[key] = value
          }
          return merged
        },
        ifMatch,
      )
    },

    modify,

    async remove(scope, definition, id, ifMatch) {
      const current = await find(scope, definition, id)
      if (ifMatch !== undefined && !ifMatchAccepts(ifMatch, current._hash)) throw changed(id)
      let removed: DocumentRecord | null
      try {
        removed = await collectionOf(definition).deleteOne(
          { _id: current._id },
          { expectedHash: ifMatch === undefined ? undefined : current._hash },
        )
      } catch (error) {
        throw error instanceof ConflictError ? changed(id) : error
      }
      if (!removed) throw notFound(definition, id)
      for (const listener of listeners) await listener({ definition, document: removed })
      return removed
    },

    onRemove(listener) {
      listeners.push(listener)
    },

    async syncIndexes(definition, previous = []) {
      const documents = collectionOf(definition)
      const wanted = (definition.indexes ?? []).map(declaredIndex)
      for (const old of previous.map(declaredIndex)) {
        if (!wanted.some((spec) => spec.name === old.name)) await documents.dropIndex(old.name)
      }
      await documents.ensureIndex(EXTERNAL_ID_INDEX)
      for (const spec of wanted) {
        try {
          await documents.ensureIndex(spec)
        } catch (error) {
          if (!(error instanceof DuplicateKeyError)) throw error
          throw fail(
            'validation_error',
            `body/indexes: existing documents have equal values for unique index ${spec.name}`,
          )
        }
      }
    },

    countAll(definition) {
      return collectionOf(definition).count({})
    },

    async dropAll(definition) {
      await store.dropCollection(collectionName(definition))
      for (const listener of listeners) await listener({ definition })
    },
  }
}

/** Decorates `fastify.documents`. */
export const documentsPlugin = fp<{ store: RecordStore }>(
  async (fastify, { store }) => {
    fastify.decorate('documents', documentsRepository(store))
  },
  { name: 'documents-repository', fastify: '5.x' },
)
