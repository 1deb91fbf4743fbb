import fp from 'fastify-plugin'
import type { Scope } from '@quire/auth'
import type { AccessGroup, BulkOperation, BulkResult, Document, IndexDeclaration, Pagination } from '@quire/contracts'
import {
  ConflictError,
  DuplicateKeyError,
  InvalidQueryError,
  newObjectId,
  ParallelArraysError,
  QueryTooLargeError,
  type Collection,
  type Filter,
  type IndexInfo,
  type Projection,
  type RecordStore,
  type RecordText,
  type StoredRecord,
  type Transaction,
} from '@quire/records'
import { ApiError, fail } from '@quire/service-kit'
import {
  declaredIndex,
  documentsCollection,
  EXTERNAL_ID_INDEX,
  type BulkRecord,
  type DefinitionRecord,
  type DocumentFields,
  type DocumentRecord,
} from '../collections.js'
import { actionsFor, checkActionDepth, checkProposedFields, checkRunLasts } from '../lib/actions.js'
import { userFields, userPart } from '../lib/document-fields.js'
import { validateFields } from '../lib/field-validators.js'
import { ifMatchAccepts } from '../lib/if-match.js'
import { afterOf, inIdOrder, nextPageQuery, type ListQuery } from '../lib/list-query.js'
import { sha256 } from '../lib/sha256.js'
import { keepAttachmentFields } from '../lib/value-path.js'
import { arrayText, hashed, storedHash, withField } from '../lib/stored-text.js'
import {
  checkGroupsWrite,
  documentPermissions,
  documentPermissionsField,
  keepsPermissions,
  visibilityFilter,
  withCondition,
} from '../lib/visibility.js'
import type { Actions } from './actions.js'
import type { IdempotencyKeys } from './idempotency.js'

/** Told after a document (or, with `document` absent, every document of a definition) is removed. */
type RemovalListener = (removed: { definition: DefinitionRecord; document?: DocumentRecord }) => Promise<void>

export interface DocumentsRepository {
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
  /**
   * `POST .../bulk`: every operation in one transaction, all or nothing (the first failing one is the answer);
   * a result per operation. With an idempotency key, a retry with the same operations replays the results.
   */
  bulk(
    scope: Scope,
    definition: DefinitionRecord,
    operations: readonly BulkOperation[],
    idempotencyKey?: string,
  ): Promise<{ results: BulkResult[]; replayed: boolean }>
  /** Hook point for what documents own outside the records store (attachment files). */
  onRemove(listener: RemovalListener): void
  /**
   * Creates the indexes `definition` declares that `previous` did not (and the collection's own), resolving to
   * the names it created, so a definition write that then fails can drop them again (`dropIndexes`).
   */
  addIndexes(definition: DefinitionRecord, previous?: IndexDeclaration[]): Promise<string[]>
  /** Drops the declared indexes of `previous` that `definition` no longer declares (once the definition is written). */
  removeIndexes(definition: DefinitionRecord, previous: IndexDeclaration[]): Promise<void>
  dropIndexes(definition: DefinitionRecord, names: readonly string[]): Promise<void>
  /** The collection's indexes with their build state (`building` until every document is in it). */
  indexStates(definition: DefinitionRecord): Promise<IndexInfo[]>
  countAll(definition: DefinitionRecord): Promise<number>
  dropAll(definition: DefinitionRecord): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    documents: DocumentsRepository
  }
}

/** Unpinned writes merge again onto a newer version; each round one writer wins, so this bounds contention. */
const MAX_WRITE_ATTEMPTS = 16

/** The system fields of a document as a write sets them. */
type SystemFields = Pick<
  DocumentRecord,
  | '_id'
  | '_createdOn'
  | '_createdByUserId'
  | '_lastModifiedOn'
  | '_lastModifiedByUserId'
  | '_documentDefinitionId'
  | '_environmentId'
>

/** A kind of write, and the actions it may set off before and after it. */
const WRITES = {
  create: { before: 'beforeCreate', after: 'afterCreate' },
  update: { before: 'beforeUpdate', after: 'afterUpdate' },
  delete: { before: 'beforeDelete', after: 'afterDelete' },
} as const
type Write = keyof typeof WRITES

/**
 * Whether a write of `kind` sets off actions of `definition` (a definition without any costs one property read);
 * 409 when they would run too deep.
 */
function setsOffActions(scope: Scope, definition: DefinitionRecord, kind: Write): boolean {
  if (definition.actions === undefined) return false
  const { before, after } = WRITES[kind]
  const sets = actionsFor(definition, before).length > 0 || actionsFor(definition, after).length > 0
  if (sets) checkActionDepth(scope.actionDepth, `This ${kind}`)
  return sets
}

const present = (scope: Scope, record: DocumentRecord): Document => ({
  ...record,
  _permissions: documentPermissions(scope, record.accessGroups),
})

/** `projection` reading the top-level `field` too; `added` when the caller did not ask for it (to drop it again). */
function withTopLevel(projection: Projection, field: string): { projection: Projection; added: boolean } {
  if (Object.values(projection).includes(1)) {
    return projection[field] === 1
      ? { projection, added: false }
      : { projection: { ...projection, [field]: 1 }, added: true }
  }
  if (projection[field] !== 0) return { projection, added: false }
  const reading = { ...projection }
  delete reading[field]
  return { projection: reading, added: true }
}

const projects = (query: ListQuery) => Object.keys(query.projection).length > 0

const notFound = (definition: DefinitionRecord, id: string) =>
  fail('document_not_found', `No document "${id}" in definition "${definition.name}"`, 'The document does not exist')

const changed = (id: string) =>
  fail(
    'precondition_failed',
    `Document "${id}" changed since the given If-Match version`,
    'The document was changed by someone else; reload it',
  )

/** Unique-index violations on document writes: the external id, or a unique index the definition declares. */
function duplicate(error: DuplicateKeyError, fields: DocumentFields): ApiError {
  if (error.index === EXTERNAL_ID_INDEX.name) {
    return fail(
      'duplicate_external_id',
      `externalId "${String(fields.externalId)}" is already used in this definition`,
      'Another document already has this external id',
    )
  }
  return fail('duplicate_key', `body: another document has the same values for unique index ${error.index}`)
}

/** What an index refuses, as the API says it: a duplicate (above), or arrays in two fields of one index. */
function refusedWrite(error: unknown, fields: DocumentFields): unknown {
  if (error instanceof DuplicateKeyError) return duplicate(error, fields)
  if (error instanceof ParallelArraysError) return fail('parallel_arrays', `body: ${error.message}`)
  return error
}

/** A JSON merge patch of top-level fields onto `fields`: `null` removes one. */
function mergePatch(fields: DocumentFields, patch: DocumentFields): DocumentFields {
  const merged = { ...fields }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return merged
}

/** An operation's error, naming it. */
function atOperation(index: number, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error
  return new ApiError(error.code, `operations/${index}: ${error.message}`, error.userDescription, error.statusCode)
}

/** A query the store will not run: malformed, or over its memory budget (the message names the missing index). */
function refusedQuery(error: unknown): unknown {
  if (error instanceof InvalidQueryError || error instanceof QueryTooLargeError) {
    return fail('invalid_query', error.message, 'The list parameters are not valid')
  }
  return error
}

/** An index the existing documents cannot hold: equal values for a unique one, or parallel arrays. */
function refusedIndex(error: unknown, name: string): unknown {
  if (error instanceof DuplicateKeyError) {
    return fail('validation_error', `body/indexes: existing documents have equal values for unique index ${name}`)
  }
  if (error instanceof ParallelArraysError) {
    return fail('parallel_arrays', `body/indexes: existing documents cannot be indexed: ${error.message}`)
  }
  return error
}

function documentsRepository(
  store: RecordStore,
  idempotencyKeys: IdempotencyKeys,
  actions: Actions,
): DocumentsRepository {
  const listeners: RemovalListener[] = []
  const collectionOf = (definition: DefinitionRecord) => documentsCollection(definition).in(store)

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

  /** A record of `system` and `fields`, the write rules checked (against the groups it had), hashed. */
  function build(
    scope: Scope,
    definition: DefinitionRecord,
    system: SystemFields,
    previousGroups: readonly AccessGroup[],
    fields: DocumentFields,
  ): DocumentRecord {
    const record: DocumentRecord = {
      _id: system._id,
      _createdOn: system._createdOn,
      _createdByUserId: system._createdByUserId,
      _lastModifiedOn: system._lastModifiedOn,
      _lastModifiedByUserId: system._lastModifiedByUserId,
      _documentDefinitionId: system._documentDefinitionId,
      _environmentId: system._environmentId,
      ...fields,
      status: typeof fields.status === 'string' ? fields.status : 'ready',
      accessGroups: Array.isArray(fields.accessGroups) ? (fields.accessGroups as AccessGroup[]) : [],
      _hash: '',
    }
    checkGroupsWrite(scope, previousGroups, record.accessGroups)
    validateFields(definition, record)
    return hashed(record)
  }

  function newRecord(scope: Scope, definition: DefinitionRecord, fields: DocumentFields): DocumentRecord {
    const now = new Date().toISOString()
    const system: SystemFields = {
      _id: newObjectId(),
      _createdOn: now,
      _createdByUserId: scope.userId,
      _lastModifiedOn: now,
      _lastModifiedByUserId: scope.userId,
      _documentDefinitionId: definition._id,
      _environmentId: definition._environmentId,
    }
    return build(scope, definition, system, [], fields)
  }

  const groupsOf = (record: DocumentRecord): AccessGroup[] =>
    Array.isArray(record.accessGroups) ? record.accessGroups : []

  /** `current` rewritten with `fields` (write rules checked, hashed), as PUT, PATCH and bulk updates store it. */
  function nextRecord(
    scope: Scope,
    definition: DefinitionRecord,
    current: DocumentRecord,
    fields: DocumentFields,
  ): DocumentRecord {
    const system: SystemFields = {
      _id: current._id,
      _createdOn: current._createdOn,
      _createdByUserId: current._createdByUserId,
      _lastModifiedOn: new Date().toISOString(),
      _lastModifiedByUserId: scope.userId,
      _documentDefinitionId: current._documentDefinitionId,
      _environmentId: current._environmentId,
    }
    return build(scope, definition, system, groupsOf(current), fields)
  }

  /**
   * The before-write actions of a create (`current` null) or an update, in declaration order, on `record`: each
   * sees the document as the previous one left it. A returned object replaces the user fields, checked again as a
   * client's body (system fields stay the write's, attachment metadata the stored one's).
   */
  async function beforeWrite(
    scope: Scope,
    definition: DefinitionRecord,
    record: DocumentRecord,
    current: DocumentRecord | null,
  ): Promise<DocumentRecord> {
    const trigger = current ? 'beforeUpdate' : 'beforeCreate'
    const previous = current && present(scope, current)
    for (const action of actionsFor(definition, trigger)) {
      const fields = await actions.before(scope, definition, action, trigger, present(scope, record), previous)
      if (fields === undefined) continue
      checkProposedFields(action, fields)
      const proposed = userFields(fields)
      record = current
        ? build(scope, definition, record, groupsOf(current), keepAttachmentFields(current, proposed))
        : build(scope, definition, record, [], proposed)
    }
    return record
  }

  /** The before-delete actions of `current`: they can only refuse. */
  async function beforeDelete(scope: Scope, definition: DefinitionRecord, current: DocumentRecord): Promise<void> {
    for (const action of actionsFor(definition, 'beforeDelete')) {
      const document = present(scope, current)
      await actions.before(scope, definition, action, 'beforeDelete', document, document)
    }
  }

  /**
   * Does `write` in a transaction that also queues the after-write actions of `kind` when the definition has
   * any (so a committed write's jobs are never lost, an uncommitted one's never exist); the plain write otherwise.
   */
  async function committed<T>(
    scope: Scope,
    definition: DefinitionRecord,
    kind: Write,
    write: (documents: Collection<DocumentRecord>) => Promise<T>,
    jobOf: (result: T) => { document: DocumentRecord; previous: DocumentRecord | null } | null,
  ): Promise<T> {
    const trigger = WRITES[kind].after
    if (actionsFor(definition, trigger).length === 0) {
      checkRunLasts(scope)
      return write(collectionOf(definition))
    }
    const result = await store.transaction(async (tx) => {
      const written = await write(documentsCollection(definition).in(tx))
      const job = jobOf(written)
      if (job) {
        const previous = job.previous && present(scope, job.previous)
        await actions.enqueue(tx, scope, definition, trigger, present(scope, job.document), previous)
      }
      checkRunLasts(scope)
      return written
    })
    actions.dispatch()
    return result
  }

  /**
   * The operations of a bulk call in `tx`, in order, each under the rules of its single route; the first that
   * fails throws its error naming it (`operations/<i>: ...`) and the transaction writes nothing.
   */
  async function applyBulk(
    scope: Scope,
    definition: DefinitionRecord,
    operations: readonly BulkOperation[],
    tx: Transaction,
    removed: DocumentRecord[],
  ): Promise<BulkResult[]> {
    const documents = documentsCollection(definition).in(tx)
    const current = (id: string) =>
      lookup(scope, definition, id, async (filter) => (await documents.findOne(filter)) ?? undefined)
    /** Queues the after-write actions of an operation in this transaction (none for most definitions). */
    const enqueue = async (kind: Write, document: DocumentRecord, previous: DocumentRecord | null) => {
      const trigger = WRITES[kind].after
      if (actionsFor(definition, trigger).length === 0) return
      await actions.enqueue(
        tx,
        scope,
        definition,
        trigger,
        present(scope, document),
        previous && present(scope, previous),
      )
    }
    const results: BulkResult[] = []
    for (const [index, operation] of operations.entries()) {
      try {
        if (operation.op === 'create') {
          let record = newRecord(scope, definition, userFields(operation.body ?? {}))
          const acts = setsOffActions(scope, definition, 'create')
          if (acts) record = await beforeWrite(scope, definition, record, null)
          await documents.insertOne(record)
          if (acts) await enqueue('create', record, null)
          results.push({ op: 'create', _id: record._id, _hash: record._hash })
          continue
        }
        const before = await current(operation.id)
        if (operation.ifMatch !== undefined && !ifMatchAccepts(operation.ifMatch, before._hash)) {
          throw changed(operation.id)
        }
        if (operation.op === 'delete') {
          const acts = setsOffActions(scope, definition, 'delete')
          if (acts) await beforeDelete(scope, definition, before)
          await documents.deleteOne({ _id: before._id })
          if (acts) await enqueue('delete', before, before)
          removed.push(before)
          results.push({ op: 'delete', _id: before._id, deleted: true })
          continue
        }
        const fields = operation.op === 'update' ? operation.body : mergePatch(userPart(before), operation.body)
        let next = nextRecord(scope, definition, before, keepAttachmentFields(before, userFields(fields)))
        const acts = setsOffActions(scope, definition, 'update')
        if (acts) next = await beforeWrite(scope, definition, next, before)
        const { _id, ...replacement } = next
        await documents.updateOne({ _id }, replacement)
        if (acts) await enqueue('update', next, before)
        results.push({ op: operation.op, _id, _hash: replacement._hash })
      } catch (error) {
        throw atOperation(index, error)
      }
    }
    checkRunLasts(scope)
    return results
  }

  async function createOnce(scope: Scope, definition: DefinitionRecord, body: DocumentFields, key: string) {
    const owner = { environmentId: definition._environmentId, definitionId: definition._id, userId: scope.userId }
    let record: DocumentRecord | undefined
    try {
      const created = await idempotencyKeys.once(owner, key, body, async (tx) => {
        record = newRecord(scope, definition, userFields(body))
        const documents = documentsCollection(definition).in(tx)
        if (!setsOffActions(scope, definition, 'create')) {
          checkRunLasts(scope)
          return documents.insertOne(record)
        }
        // A replay answers the first result: its actions ran with the first call, and only then.
        record = await beforeWrite(scope, definition, record, null)
        const inserted = await documents.insertOne(record)
        if (actionsFor(definition, 'afterCreate').length > 0) {
          await actions.enqueue(tx, scope, definition, 'afterCreate', present(scope, inserted), null)
        }
        checkRunLasts(scope)
        return inserted
      })
      if (!created.replayed && actionsFor(definition, 'afterCreate').length > 0) actions.dispatch()
      return created
    } catch (error) {
      if (error instanceof ConflictError) throw changed(key)
      throw record ? refusedWrite(error, record) : error
    }
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
      const fields = keepAttachmentFields(current, userFields(change(userPart(current))))
      let next = nextRecord(scope, definition, current, fields)
      const acts = setsOffActions(scope, definition, 'update')
      if (acts) next = await beforeWrite(scope, definition, next, current)
      const { _id, ...replacement } = next
      try {
        const write = (into: Collection<DocumentRecord>) =>
          into.updateOne({ _id }, replacement, { expectedHash: current._hash })
        if (!acts) checkRunLasts(scope)
        const updated = acts
          ? await committed(scope, definition, 'update', write, (done) =>
              done ? { document: done, previous: current } : null,
            )
          : await documents.updateOne({ _id }, replacement, { expectedHash: current._hash })
        if (!updated) throw notFound(definition, id)
        return present(scope, updated)
      } catch (error) {
        if (error instanceof DuplicateKeyError || error instanceof ParallelArraysError) {
          throw refusedWrite(error, fields)
        }
        // Someone wrote in between: a pinned version lost; otherwise merge again onto the newer one.
        if (!(error instanceof ConflictError) || ifMatch !== undefined) {
          throw error instanceof ConflictError ? changed(id) : error
        }
      }
    }
    throw changed(id)
  }

  /**
   * `after` of the page following `last`: under another sort than `_id`'s, a cursor of its sort values, read from
   * its text or (projected away) from the store; deleted in between, its `_id` (read by the next page).
   */
  async function afterLast(definition: DefinitionRecord, query: ListQuery, last: RecordText): Promise<string> {
    if (inIdOrder(query.sort)) return last._id
    if (!projects(query)) return afterOf(query.sort, JSON.parse(last.json) as StoredRecord)
    const sortFields = Object.fromEntries(Object.keys(query.sort).map((path) => [path, 1 as const]))
    const record = await collectionOf(definition).findOne({ _id: last._id }, { projection: sortFields })
    return record ? afterOf(query.sort, record) : last._id
  }

  async function dropIndexes(definition: DefinitionRecord, names: readonly string[]): Promise<void> {
    const documents = collectionOf(definition)
    for (const name of names) await documents.dropIndex(name)
  }

  return {
    async list(scope, definition, query) {
      const documents = collectionOf(definition)
      const visibility = visibilityFilter(scope)
      const filter = withCondition(query.filter, visibility)
      // An `_id` under another sort than `_id`'s is placed by its document's values: it must exist, and a member
      // may not page from a document hidden from them (its position would leak its values).
      if (
        query.after !== undefined &&
        !query.position &&
        visibility &&
        !(await documents.findOne(withCondition({ _id: query.after }, visibility), { projection: { _id: 1 } }))
      ) {
        throw fail('invalid_query', `after: no document ${query.after}`, 'The list parameter "after" is not valid')
      }
      const after = query.position ?? query.after
      const options = { sort: query.sort, skip: query.skip, limit: query.limit + 1, after }
      const withPermissions = keepsPermissions(query)
      let items: RecordText[]
      let total: number | undefined
      try {
        if (projects(query)) {
          // Projected records are this call's own copies: `_permissions` goes onto them before they are serialized;
          // it reads `accessGroups`, read even when projected away (and then dropped again).
          const { projection, added } = withPermissions
            ? withTopLevel(query.projection, 'accessGroups')
            : { projection: query.projection, added: false }
          const records = await documents.find(filter, { ...options, projection })
          items = records.map((record) => {
            if (!withPermissions) return { _id: record._id, json: JSON.stringify(record) }
            const permissions = documentPermissions(scope, record.accessGroups)
            if (added) delete (record as Partial<DocumentRecord>).accessGroups
            return { _id: record._id, json: JSON.stringify(Object.assign(record, { _permissions: permissions })) }
          })
        } else {
          // Whole documents as stored (never empty: `_id` at least), `_permissions` appended as their last field.
          items = (await documents.findText(filter, options)).map((item) =>
            withPermissions
              ? { _id: item._id, json: withField(item.json, documentPermissionsField(scope, item.json)) }
              : item,
          )
        }
        if (query.count) total = await documents.count(filter)
      } catch (error) {
        throw refusedQuery(error)
      }
      const hasNext = items.length > query.limit
      if (hasNext) items.length = query.limit
      const last = items.at(-1)
      const pagination: Pagination = {
        hasPrevious: query.after !== undefined || query.skip > 0,
        hasNext,
        type: 'cursor',
      }
      if (hasNext && last) pagination.next = nextPageQuery(query, await afterLast(definition, query, last))
      if (total !== undefined) pagination.total = total
      return { data: arrayText(items), pagination }
    },

    async get(scope, definition, id) {
      // The record is this call's own decoded copy, as in `list`: `_permissions` goes onto it, not onto a copy.
      const record = await find(scope, definition, id)
      return Object.assign(record, { _permissions: documentPermissions(scope, record.accessGroups) })
    },

    async read(scope, definition, id) {
      const documents = collectionOf(definition)
      const found = await lookup(
        scope,
        definition,
        id,
        async (filter) => (await documents.findText(filter, { limit: 1 }))[0],
      )
      return { json: withField(found.json, documentPermissionsField(scope, found.json)), hash: storedHash(found.json) }
    },

    async create(scope, definition, body, idempotencyKey) {
      if (idempotencyKey !== undefined) {
        const { document, replayed } = await createOnce(scope, definition, body, idempotencyKey)
        return { document: present(scope, document), replayed }
      }
      let record = newRecord(scope, definition, userFields(body))
      try {
        if (!setsOffActions(scope, definition, 'create')) {
          checkRunLasts(scope)
          await collectionOf(definition).insertOne(record)
        } else {
          record = await beforeWrite(scope, definition, record, null)
          const inserted = record
          await committed(
            scope,
            definition,
            'create',
            (documents) => documents.insertOne(inserted),
            (document) => ({ document, previous: null }),
          )
        }
      } catch (error) {
        throw refusedWrite(error, record)
      }
      return { document: present(scope, record), replayed: false }
    },

    replace(scope, definition, id, body, ifMatch) {
      return modify(scope, definition, id, () => body, ifMatch)
    },

    patch(scope, definition, id, patch, ifMatch) {
      return modify(scope, definition, id, (fields) => mergePatch(fields, patch), ifMatch)
    },

    modify,

    async bulk(scope, definition, operations, idempotencyKey) {
      const removed: DocumentRecord[] = []
      const run = async (tx: Transaction): Promise<BulkRecord> => {
        removed.length = 0
        const results = await applyBulk(scope, definition, operations, tx, removed)
        return { _hash: sha256(JSON.stringify(results)).slice(0, 32), results }
      }
      let outcome: { document: BulkRecord; replayed: boolean } | undefined
      try {
        if (idempotencyKey !== undefined) {
          const owner = { environmentId: definition._environmentId, definitionId: definition._id, userId: scope.userId }
          outcome = await idempotencyKeys.once(owner, `bulk:${idempotencyKey}`, operations, run)
        } else {
          for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS && !outcome; attempt++) {
            try {
              outcome = { document: await store.transaction(run), replayed: false }
            } catch (error) {
              // Someone wrote a document this call read: run it again on what is there now (If-Match re-checked).
              if (!(error instanceof ConflictError)) throw error
            }
          }
        }
      } catch (error) {
        if (error instanceof ConflictError) throw changed('(bulk)')
        // Unique indexes are checked as the transaction commits: the refusal names the call, not an operation.
        if (error instanceof DuplicateKeyError) throw refusedWrite(error, { externalId: error.key })
        throw refusedWrite(error, {})
      }
      if (!outcome) throw changed('(bulk)')
      if (!outcome.replayed && definition.actions !== undefined) actions.dispatch()
      if (!outcome.replayed) {
        for (const document of removed) for (const listener of listeners) await listener({ definition, document })
      }
      return { results: outcome.document.results, replayed: outcome.replayed }
    },

    async remove(scope, definition, id, ifMatch) {
      const current = await find(scope, definition, id)
      if (ifMatch !== undefined && !ifMatchAccepts(ifMatch, current._hash)) throw changed(id)
      const acts = setsOffActions(scope, definition, 'delete')
      if (acts) await beforeDelete(scope, definition, current)
      let removed: DocumentRecord | null
      try {
        // Actions saw `current`: the deletion is of that version (a concurrent change is 412).
        const expectedHash = ifMatch === undefined && !acts ? undefined : current._hash
        const write = (from: Collection<DocumentRecord>) => from.deleteOne({ _id: current._id }, { expectedHash })
        if (!acts) checkRunLasts(scope)
        removed = acts
          ? await committed(scope, definition, 'delete', write, (gone) =>
              gone ? { document: gone, previous: gone } : null,
            )
          : await write(collectionOf(definition))
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

    async addIndexes(definition, previous = []) {
      const spec = documentsCollection(definition)
      const documents = spec.in(store)
      const had = new Set(previous.map((declaration) => declaredIndex(declaration).name))
      const created: string[] = []
      for (const index of spec.indexes) await documents.ensureIndex(index)
      // Indexes the previous version declared are ensured too (one lost to a crash comes back), never dropped here.
      for (const index of (definition.indexes ?? []).map(declaredIndex)) {
        try {
          await documents.ensureIndex(index)
        } catch (error) {
          await dropIndexes(definition, created)
          throw refusedIndex(error, index.name)
        }
        if (!had.has(index.name) && !created.includes(index.name)) created.push(index.name)
      }
      return created
    },

    async removeIndexes(definition, previous) {
      const wanted = new Set((definition.indexes ?? []).map((declaration) => declaredIndex(declaration).name))
      const documents = collectionOf(definition)
      for (const { name } of previous.map(declaredIndex)) if (!wanted.has(name)) await documents.dropIndex(name)
    },

    dropIndexes,

    indexStates(definition) {
      return collectionOf(definition).indexes()
    },

    countAll(definition) {
      return collectionOf(definition).count({})
    },

    async dropAll(definition) {
      await store.dropCollection(documentsCollection(definition).name)
      for (const listener of listeners) await listener({ definition })
    },
  }
}

/** Decorates `fastify.documents`; creates with an `Idempotency-Key` go through `fastify.idempotencyKeys`. */
export const documentsPlugin = fp<{ store: RecordStore }>(
  async (fastify, { store }) => {
    fastify.decorate('documents', documentsRepository(store, fastify.idempotencyKeys, fastify.actions))
  },
  {
    name: '@quire/documents-documents',
    fastify: '5.x',
    dependencies: ['@quire/documents-idempotency', '@quire/documents-actions'],
  },
)
