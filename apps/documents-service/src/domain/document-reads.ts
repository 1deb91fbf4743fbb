import type { Scope } from '@quire/auth'
import type { Document, Pagination } from '@quire/contracts'
import {
  InvalidQueryError,
  QueryTooLargeError,
  type Projection,
  type RecordStore,
  type RecordText,
  type StoredRecord,
} from '@quire/records'
import { fail } from '@quire/service-kit'
import { documentsCollection, type DefinitionRecord, type DocumentRecord } from '../collections.js'
import { afterOf, inIdOrder, nextPageQuery, type ListQuery } from '../lib/list-query.js'
import { storedHash, withField } from '../lib/stored-text.js'
import {
  documentPermissions,
  documentPermissionsField,
  keepsPermissions,
  visibilityFilter,
  withCondition,
} from '../lib/visibility.js'
import { findVisible, lookup } from './document-records.js'

export interface DocumentReads {
  /** A page of documents as their stored JSON text, `_permissions` appended: sent without decoding them. */
  list(
    scope: Scope,
    definition: DefinitionRecord,
    query: ListQuery,
  ): Promise<{ items: RecordText[]; pagination: Pagination }>
  /** By `_id`, then by `externalId`; 404 `document_not_found` when neither is visible to the caller. */
  get(scope: Scope, definition: DefinitionRecord, id: string): Promise<Document>
  /** `get` as the document's JSON text, `_permissions` included, with its `_hash`: sent without decoding it. */
  read(scope: Scope, definition: DefinitionRecord, id: string): Promise<{ json: string; hash: string }>
  /** `get` as stored, without `_permissions`: what a write starts from. */
  find(scope: Scope, definition: DefinitionRecord, id: string): Promise<DocumentRecord>
}

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

/** A query the store will not run: malformed, or over its memory budget (the message names the missing index). */
function refusedQuery(error: unknown): unknown {
  if (error instanceof InvalidQueryError || error instanceof QueryTooLargeError) {
    return fail('invalid_query', error.message, 'The list parameters are not valid')
  }
  return error
}

export function createDocumentReads(deps: { store: RecordStore }): DocumentReads {
  const collectionOf = (definition: DefinitionRecord) => documentsCollection(definition).in(deps.store)

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
      return { items, pagination }
    },

    async get(scope, definition, id) {
      // The record is this call's own decoded copy, as in `list`: `_permissions` goes onto it, not onto a copy.
      const record = await findVisible(collectionOf(definition), scope, definition, id)
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

    find(scope, definition, id) {
      return findVisible(collectionOf(definition), scope, definition, id)
    },
  }
}
