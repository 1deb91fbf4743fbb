import type { Scope } from '@quire/auth'
import { ConflictError, type RecordStore, type Transaction } from '@quire/records'
import { documentsCollection, type DefinitionRecord, type DocumentFields, type DocumentRecord } from '../collections.js'
import { actionsFor, checkActionDepth, checkProposedFields, checkRunLasts } from '../lib/actions.js'
import { userFields } from '../lib/document-fields.js'
import { keepAttachmentFields } from '../lib/value-path.js'
import type { AttachmentFiles } from './attachment-files.js'
import type { ChangesPort } from './change-log.js'
import { isoTime, type ActionsPort, type Clock, type WebhooksPort } from './deps.js'
import { newRecord, present, rebuilt } from './document-records.js'

/** Commits of an unpinned write tried while concurrent writes to its document keep committing first. */
const UNPINNED_ATTEMPTS = 16

/** A kind of write, and the actions it may set off before and after it. */
const WRITES = {
  create: { before: 'beforeCreate', after: 'afterCreate' },
  update: { before: 'beforeUpdate', after: 'afterUpdate' },
  delete: { before: 'beforeDelete', after: 'afterDelete' },
} as const

/** What a caller asks: `fields` are the client's (system fields are dropped, keys checked). */
type WriteRequest =
  | { kind: 'create'; fields: DocumentFields }
  | { kind: 'update'; current: DocumentRecord; fields: DocumentFields }
  | { kind: 'delete'; current: DocumentRecord }

/** A write validated and through its before-write actions: what `apply` commits. */
export interface PreparedWrite {
  kind: keyof typeof WRITES
  /** The record written (create, update), or the one removed (delete). */
  record: DocumentRecord
  /** The stored version it replaces or removes; null for a create. */
  previous: DocumentRecord | null
  /** It sets off actions: an unpinned delete then removes the version they saw. */
  acts: boolean
  /** Its after-write jobs are queued in its transaction. */
  queues: boolean
}

/**
 * The one way a document is written: `prepare` (validate, before-write actions), `apply` (the write, its
 * change-log entry and its after-write jobs, in one transaction), then `settle` once committed (dispatch the jobs, release the files no
 * document refers to any more). Create, create-once, replace, patch, remove and bulk all go through it.
 */
export interface WritePipeline {
  prepare(scope: Scope, definition: DefinitionRecord, request: WriteRequest): Promise<PreparedWrite>
  /**
   * Writes `prepared` and its change-log entry through `into`, a transaction (with its jobs); `expectedHash`
   * pins the version replaced or removed. Resolves to the written record, or null when the pinned one is gone.
   */
  apply(
    into: Transaction,
    scope: Scope,
    definition: DefinitionRecord,
    prepared: PreparedWrite,
    expectedHash?: string,
  ): Promise<DocumentRecord | null>
  /** `apply` on its own, in a transaction (with its change-log entry and jobs), the run's end checked last. */
  commit(
    scope: Scope,
    definition: DefinitionRecord,
    prepared: PreparedWrite,
    expectedHash?: string,
  ): Promise<DocumentRecord | null>
  /** After the writes committed. */
  settle(definition: DefinitionRecord, writes: readonly PreparedWrite[]): Promise<void>
}

export function createWritePipeline(deps: {
  store: RecordStore
  actions: ActionsPort
  webhooks: WebhooksPort
  attachmentFiles: AttachmentFiles
  changes: ChangesPort
  clock: Clock
}): WritePipeline {
  const { store, actions, webhooks, attachmentFiles, changes, clock } = deps

  /**
   * Whether a write of `kind` sets off actions of `definition` (a definition without any costs one property
   * read); 409 when they would run too deep.
   */
  function setsOffActions(scope: Scope, definition: DefinitionRecord, kind: PreparedWrite['kind']): boolean {
    if (definition.actions === undefined) return false
    const { before, after } = WRITES[kind]
    const sets = actionsFor(definition, before).length > 0 || actionsFor(definition, after).length > 0
    if (sets) checkActionDepth(scope.actionDepth, `This ${kind}`)
    return sets
  }

  /**
   * The before-write actions of a create (`current` null) or an update, in declaration order, on `record`: each
   * sees the document as the previous one left it. A returned object replaces the user fields, checked again as
   * a client's body (system fields stay the write's, attachment metadata the stored one's).
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
      record = rebuilt(scope, definition, record, current, current ? keepAttachmentFields(current, proposed) : proposed)
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

  async function prepare(scope: Scope, definition: DefinitionRecord, request: WriteRequest): Promise<PreparedWrite> {
    const { kind } = request
    let record: DocumentRecord
    if (request.kind === 'create') {
      record = newRecord(scope, definition, userFields(request.fields), isoTime(clock))
    } else if (request.kind === 'update') {
      const { current } = request
      const fields = keepAttachmentFields(current, userFields(request.fields))
      record = rebuilt(scope, definition, current, current, fields, isoTime(clock))
    } else {
      record = request.current
    }
    const previous = request.kind === 'create' ? null : request.current
    const acts = setsOffActions(scope, definition, kind)
    if (acts && kind === 'delete') await beforeDelete(scope, definition, record)
    else if (acts) record = await beforeWrite(scope, definition, record, previous)
    const queues = acts && actionsFor(definition, WRITES[kind].after).length > 0
    return { kind, record, previous, acts, queues }
  }

  async function apply(
    into: Transaction,
    scope: Scope,
    definition: DefinitionRecord,
    prepared: PreparedWrite,
    expectedHash?: string,
  ): Promise<DocumentRecord | null> {
    const documents = documentsCollection(definition).in(into)
    const { kind, record } = prepared
    let written: DocumentRecord | null
    if (kind === 'create') {
      written = await documents.insertOne(record)
    } else if (kind === 'update') {
      const { _id, ...replacement } = record
      written = await documents.updateOne({ _id }, replacement, { expectedHash })
    } else {
      written = await documents.deleteOne({ _id: record._id }, { expectedHash })
    }
    if (written) await changes.document(into, kind, written, prepared.previous)
    if (written && prepared.queues) {
      const previous = kind === 'delete' ? written : prepared.previous
      const trigger = WRITES[kind].after
      await actions.enqueue(
        into,
        scope,
        definition,
        trigger,
        present(scope, written),
        previous && present(scope, previous),
      )
    }
    if (written) await webhooks.enqueue(into, definition, kind, written, prepared.previous)
    return written
  }

  return {
    prepare,
    apply,

    async commit(scope, definition, prepared, expectedHash) {
      // A committed write's change-log entry, jobs and deliveries are never lost, an uncommitted one's never exist.
      const once = () =>
        store.transaction(async (tx) => {
          const written = await apply(tx, scope, definition, prepared, expectedHash)
          checkRunLasts(scope)
          return written
        })
      // Unpinned (a delete without If-Match), a write committed meanwhile is no conflict: it applies to what is
      // there now, as it did outside a transaction.
      for (let attempt = 1; ; attempt++) {
        try {
          return await once()
        } catch (error) {
          if (expectedHash !== undefined || !(error instanceof ConflictError) || attempt >= UNPINNED_ATTEMPTS) {
            throw error
          }
        }
      }
    },

    async settle(definition, writes) {
      changes.committed(definition._environmentId)
      if (writes.some((write) => write.queues)) actions.dispatch()
      webhooks.settle()
      for (const { kind, record, previous } of writes) {
        if (previous) await attachmentFiles.afterWrite(definition, previous, kind === 'delete' ? null : record)
      }
    },
  }
}
