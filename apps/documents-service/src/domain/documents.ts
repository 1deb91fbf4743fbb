import type { Scope } from '@quire/auth'
import type { BulkOperation, BulkResult, Document } from '@quire/contracts'
import {
  ConflictError,
  DuplicateKeyError,
  ParallelArraysError,
  type RecordStore,
  type Transaction,
} from '@quire/records'
import { ApiError } from '@quire/service-kit'
import { documentsCollection, type BulkRecord, type DefinitionRecord, type DocumentFields } from '../collections.js'
import { checkRunLasts } from '../lib/actions.js'
import { userPart } from '../lib/document-fields.js'
import { ifMatchAccepts } from '../lib/if-match.js'
import { mergeFields, mergePatch } from '../lib/merge-patch.js'
import { sha256 } from '../lib/sha256.js'
import { changed, findVisible, notFound, present, refusedWrite } from './document-records.js'
import { createDocumentReads, type DocumentReads } from './document-reads.js'
import type { IdempotencyKeys } from './idempotency-keys.js'
import type { PreparedWrite, WritePipeline } from './write-pipeline.js'

/** How a PATCH body merges: `application/json` top-level fields, or `application/merge-patch+json` (RFC 7396). */
type PatchFormat = 'fields' | 'merge-patch'

export interface Documents extends DocumentReads {
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
  /** `null` removes a field; `format` says how deep the patch merges. */
  patch(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    patch: DocumentFields,
    ifMatch?: string,
    format?: PatchFormat,
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
  remove(scope: Scope, definition: DefinitionRecord, id: string, ifMatch?: string): Promise<{ _id: string }>
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
}

/** Unpinned writes merge again onto a newer version; each round one writer wins, so this bounds contention. */
const MAX_WRITE_ATTEMPTS = 16

/** An operation's error, naming it. */
function atOperation(index: number, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error
  return new ApiError(error.code, `operations/${index}: ${error.message}`, error.userDescription, error.statusCode)
}

export function createDocuments(deps: {
  store: RecordStore
  idempotencyKeys: IdempotencyKeys
  pipeline: WritePipeline
}): Documents {
  const { store, idempotencyKeys, pipeline } = deps
  const reads = createDocumentReads({ store })
  const ownerOf = (scope: Scope, definition: DefinitionRecord) => ({
    environmentId: definition._environmentId,
    definitionId: definition._id,
    userId: scope.userId,
  })

  async function createOnce(scope: Scope, definition: DefinitionRecord, body: DocumentFields, key: string) {
    let prepared: PreparedWrite | undefined
    try {
      const created = await idempotencyKeys.once(ownerOf(scope, definition), key, body, async (tx) => {
        prepared = undefined
        // A replay answers the first result: its actions ran with the first call, and only then.
        const write = await pipeline.prepare(scope, definition, { kind: 'create', fields: body })
        prepared = write
        const inserted = (await pipeline.apply(tx, scope, definition, write)) ?? write.record
        checkRunLasts(scope)
        return inserted
      })
      if (!created.replayed && prepared) await pipeline.settle(definition, [prepared])
      return created
    } catch (error) {
      if (error instanceof ConflictError) throw changed(key)
      throw prepared ? refusedWrite(error, prepared.record) : error
    }
  }

  async function modify(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    change: (fields: DocumentFields) => DocumentFields,
    ifMatch?: string,
  ): Promise<Document> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await reads.find(scope, definition, id)
      if (ifMatch !== undefined && !ifMatchAccepts(ifMatch, current._hash)) throw changed(id)
      const fields = change(userPart(current))
      const prepared = await pipeline.prepare(scope, definition, { kind: 'update', current, fields })
      let updated
      try {
        updated = await pipeline.commit(scope, definition, prepared, current._hash)
      } catch (error) {
        if (error instanceof DuplicateKeyError || error instanceof ParallelArraysError) {
          throw refusedWrite(error, prepared.record)
        }
        // Someone wrote in between: a pinned version lost; otherwise merge again onto the newer one.
        if (!(error instanceof ConflictError) || ifMatch !== undefined) {
          throw error instanceof ConflictError ? changed(id) : error
        }
        continue
      }
      if (!updated) throw notFound(definition, id)
      await pipeline.settle(definition, [prepared])
      return present(scope, updated)
    }
    throw changed(id)
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
    writes: PreparedWrite[],
  ): Promise<BulkResult[]> {
    const documents = documentsCollection(definition).in(tx)
    const results: BulkResult[] = []
    for (const [index, operation] of operations.entries()) {
      try {
        if (operation.op === 'create') {
          const prepared = await pipeline.prepare(scope, definition, { kind: 'create', fields: operation.body ?? {} })
          await pipeline.apply(tx, scope, definition, prepared)
          writes.push(prepared)
          results.push({ op: 'create', _id: prepared.record._id, _hash: prepared.record._hash })
          continue
        }
        const current = await findVisible(documents, scope, definition, operation.id)
        if (operation.ifMatch !== undefined && !ifMatchAccepts(operation.ifMatch, current._hash)) {
          throw changed(operation.id)
        }
        if (operation.op === 'delete') {
          const prepared = await pipeline.prepare(scope, definition, { kind: 'delete', current })
          await pipeline.apply(tx, scope, definition, prepared)
          writes.push(prepared)
          results.push({ op: 'delete', _id: current._id, deleted: true })
          continue
        }
        const fields = operation.op === 'update' ? operation.body : mergeFields(userPart(current), operation.body)
        const prepared = await pipeline.prepare(scope, definition, { kind: 'update', current, fields })
        await pipeline.apply(tx, scope, definition, prepared)
        writes.push(prepared)
        results.push({ op: operation.op, _id: current._id, _hash: prepared.record._hash })
      } catch (error) {
        throw atOperation(index, error)
      }
    }
    checkRunLasts(scope)
    return results
  }

  return {
    ...reads,

    async create(scope, definition, body, idempotencyKey) {
      if (idempotencyKey !== undefined) {
        const { document, replayed } = await createOnce(scope, definition, body, idempotencyKey)
        return { document: present(scope, document), replayed }
      }
      const prepared = await pipeline.prepare(scope, definition, { kind: 'create', fields: body })
      try {
        await pipeline.commit(scope, definition, prepared)
      } catch (error) {
        throw refusedWrite(error, prepared.record)
      }
      await pipeline.settle(definition, [prepared])
      return { document: present(scope, prepared.record), replayed: false }
    },

    replace(scope, definition, id, body, ifMatch) {
      return modify(scope, definition, id, () => body, ifMatch)
    },

    patch(scope, definition, id, patch, ifMatch, format = 'fields') {
      const merge = format === 'merge-patch' ? mergePatch : mergeFields
      return modify(scope, definition, id, (fields) => merge(fields, patch), ifMatch)
    },

    modify,

    async bulk(scope, definition, operations, idempotencyKey) {
      const writes: PreparedWrite[] = []
      const run = async (tx: Transaction): Promise<BulkRecord> => {
        writes.length = 0
        const results = await applyBulk(scope, definition, operations, tx, writes)
        return { _hash: sha256(JSON.stringify(results)).slice(0, 32), results }
      }
      let outcome: { document: BulkRecord; replayed: boolean } | undefined
      try {
        if (idempotencyKey !== undefined) {
          outcome = await idempotencyKeys.once(ownerOf(scope, definition), `bulk:${idempotencyKey}`, operations, run)
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
      if (!outcome.replayed) await pipeline.settle(definition, writes)
      return { results: outcome.document.results, replayed: outcome.replayed }
    },

    async remove(scope, definition, id, ifMatch) {
      const current = await reads.find(scope, definition, id)
      if (ifMatch !== undefined && !ifMatchAccepts(ifMatch, current._hash)) throw changed(id)
      const prepared = await pipeline.prepare(scope, definition, { kind: 'delete', current })
      let removed
      try {
        // Actions saw `current`: the deletion is of that version (a concurrent change is 412).
        const expectedHash = ifMatch === undefined && !prepared.acts ? undefined : current._hash
        removed = await pipeline.commit(scope, definition, prepared, expectedHash)
      } catch (error) {
        throw error instanceof ConflictError ? changed(id) : error
      }
      if (!removed) throw notFound(definition, id)
      await pipeline.settle(definition, [prepared])
      return { _id: removed._id }
    },
  }
}
