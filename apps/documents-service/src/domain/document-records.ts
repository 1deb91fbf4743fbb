import type { Scope } from '@quire/auth'
import type { AccessGroup, Document } from '@quire/contracts'
import { DuplicateKeyError, newObjectId, ParallelArraysError, type Collection, type Filter } from '@quire/records'
import { ApiError, fail } from '@quire/service-kit'
import { EXTERNAL_ID_INDEX, type DefinitionRecord, type DocumentFields, type DocumentRecord } from '../collections.js'
import { validateFields } from '../lib/field-validators.js'
import { hashed } from '../lib/stored-text.js'
import { checkGroupsWrite, documentPermissions, visibilityFilter, withCondition } from '../lib/visibility.js'

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

/** A stored document as the caller reads it: with their `_permissions`. */
export const present = (scope: Scope, record: DocumentRecord): Document => ({
  ...record,
  _permissions: documentPermissions(scope, record.accessGroups),
})

const groupsOf = (record: DocumentRecord): AccessGroup[] =>
  Array.isArray(record.accessGroups) ? record.accessGroups : []

export const notFound = (definition: DefinitionRecord, id: string) =>
  fail('document_not_found', `No document "${id}" in definition "${definition.name}"`, 'The document does not exist')

export const changed = (id: string) =>
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
export function refusedWrite(error: unknown, fields: DocumentFields): unknown {
  if (error instanceof DuplicateKeyError) return duplicate(error, fields)
  if (error instanceof ParallelArraysError) return fail('parallel_arrays', `body: ${error.message}`)
  return error
}

/** By `_id`, then by `externalId`, among the documents the caller may see; `first` reads the filter's match. */
export async function lookup<T>(
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

/** `lookup` of the stored record in `documents` (the store's collection, or a transaction's). */
export const findVisible = (
  documents: Collection<DocumentRecord>,
  scope: Scope,
  definition: DefinitionRecord,
  id: string,
): Promise<DocumentRecord> =>
  lookup(scope, definition, id, async (filter) => (await documents.findOne(filter)) ?? undefined)

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

/** A new document of `fields` written at `now`, checked and hashed. */
export function newRecord(
  scope: Scope,
  definition: DefinitionRecord,
  fields: DocumentFields,
  now: string,
): DocumentRecord {
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

/**
 * `base` with `fields` (write rules checked against the groups `previous` had, hashed): as PUT, PATCH and bulk
 * updates store it when `base` is the stored version, and as a before-write action's result is built onto the
 * write's record. `now` is the modification time (`base`'s own when absent).
 */
export function rebuilt(
  scope: Scope,
  definition: DefinitionRecord,
  base: DocumentRecord,
  previous: DocumentRecord | null,
  fields: DocumentFields,
  now?: string,
): DocumentRecord {
  const system: SystemFields = {
    _id: base._id,
    _createdOn: base._createdOn,
    _createdByUserId: base._createdByUserId,
    _lastModifiedOn: now ?? base._lastModifiedOn,
    _lastModifiedByUserId: now === undefined ? base._lastModifiedByUserId : scope.userId,
    _documentDefinitionId: base._documentDefinitionId,
    _environmentId: base._environmentId,
  }
  return build(scope, definition, system, previous ? groupsOf(previous) : [], fields)
}
