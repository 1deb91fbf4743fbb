import type { FileStore } from '@quire/files'
import { ConflictError, DuplicateKeyError, type Filter, type RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS, type DefinitionRecord, type DocumentRecord } from '../collections.js'
import { attachmentIds } from '../lib/value-path.js'
import { isoTime, type Clock, type Log } from './deps.js'

/**
 * The stored files behind attachments, one record per attachment (`attachment_files`): a copy shares its source's
 * file, counted in `shared_files`, and a file goes with its last reference. Documents release what a write drops
 * here; attachments store and share files here. Neither calls the other.
 */
export interface AttachmentFiles {
  /** Keys hold only ids the server made, never client text: `<environment>/<definition>/<document>/<attachment>`. */
  keyOf(definition: DefinitionRecord, documentId: string, attachmentId: string): string
  /** Records an attachment's own file before it is stored: a file in the store always has a record. */
  register(definition: DefinitionRecord, documentId: string, key: string): Promise<void>
  /** The key of the stored file an attachment reads: its own, or the one it shares with its source. */
  storedFile(key: string): Promise<string>
  /** The target attachment reads the source's stored file; false when the source has none (or it is going). */
  share(source: string, target: { key: string; definition: DefinitionRecord; documentId: string }): Promise<boolean>
  /** Releases attachments (see `release`); missing ones are fine, so this also cleans up half-done work. */
  discard(keys: readonly string[]): Promise<void>
  /**
   * After a committed write of a document: releases the attachments `previous` held and `next` does not (every
   * file of the document when `next` is null). The write stands: a failure is logged, the records stay findable.
   */
  afterWrite(definition: DefinitionRecord, previous: DocumentRecord, next: DocumentRecord | null): Promise<void>
  /** Every file of a definition whose collection was dropped; failures logged, as `afterWrite`. */
  dropDefinition(definition: DefinitionRecord): Promise<void>
}

const REMOVAL_BATCH = 500
/** Reference counts are read and written in optimistic transactions: retried when another one wrote first. */
const MAX_ATTEMPTS = 16

/** Runs a reference-count transaction again when a concurrent one changed what it read. */
async function retried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      const lost = error instanceof ConflictError || error instanceof DuplicateKeyError
      if (!lost || attempt === MAX_ATTEMPTS) throw error
    }
  }
}

export function createAttachmentFiles(deps: {
  store: RecordStore
  files: FileStore
  clock: Clock
  log: Log
}): AttachmentFiles {
  const { store, files, clock, log } = deps
  const fileRecords = DOCUMENTS_COLLECTIONS.attachmentFiles.in(store)
  const keyOf = (definition: DefinitionRecord, documentId: string, attachmentId: string) =>
    `${definition._environmentId}/${definition._id}/${documentId}/${attachmentId}`

  /**
   * Drops one attachment's reference to its stored file, and the file with its last reference. The record of
   * the last one stays (marked `removing`) until the file is gone, so a file in the store always has one.
   */
  async function release(key: string): Promise<void> {
    const unreferenced = await retried(() =>
      store.transaction(async (tx) => {
        const references = DOCUMENTS_COLLECTIONS.attachmentFiles.in(tx)
        const shared = DOCUMENTS_COLLECTIONS.sharedFiles.in(tx)
        const record = await references.findOne({ _id: key })
        // No record, no file of this key (records go last): a forged or already released attachment counts nothing.
        if (!record) return undefined
        const file = record.file ?? key
        const count = await shared.findOne({ _id: file })
        if (count) {
          await references.deleteOne({ _id: key })
          if (count.references > 2) {
            await shared.updateOne({ _id: file }, { $set: { references: count.references - 1 } })
          } else {
            await shared.deleteOne({ _id: file })
          }
          return undefined
        }
        // Written, so a copy sharing this file concurrently conflicts with this transaction.
        if (!record.removing) await references.updateOne({ _id: key }, { $set: { removing: true } })
        return file
      }),
    )
    if (unreferenced === undefined) return
    await files.remove(unreferenced)
    await fileRecords.deleteOne({ _id: key })
  }

  async function discard(keys: readonly string[]): Promise<void> {
    for (const key of keys) await release(key)
  }

  async function discardWhere(filter: Filter): Promise<void> {
    for (;;) {
      const batch = await fileRecords.find(filter, { limit: REMOVAL_BATCH, projection: { _id: 1 } })
      await discard(batch.map((record) => record._id))
      if (batch.length < REMOVAL_BATCH) return
    }
  }

  /** The document is written already: leftover files are logged, not turned into a failed write. */
  async function logged(work: () => Promise<void>, details: object): Promise<void> {
    try {
      await work()
    } catch (err) {
      log.warn({ err, ...details }, 'attachment files no document refers to were left in the file store')
    }
  }

  return {
    keyOf,

    async register(definition, documentId, key) {
      await fileRecords.insertOne({ _id: key, definitionId: definition._id, documentId, _createdOn: isoTime(clock) })
    },

    async storedFile(key) {
      const record = await fileRecords.findOne({ _id: key }, { projection: { file: 1 } })
      return record?.file ?? key
    },

    share(source, target) {
      return retried(() =>
        store.transaction(async (tx) => {
          const references = DOCUMENTS_COLLECTIONS.attachmentFiles.in(tx)
          const counts = DOCUMENTS_COLLECTIONS.sharedFiles.in(tx)
          const record = await references.findOne({ _id: source })
          if (!record || record.removing) return false
          const file = record.file ?? record._id
          const now = isoTime(clock)
          await references.updateOne({ _id: source }, { $set: { sharedOn: now } })
          const count = await counts.findOne({ _id: file })
          if (count) await counts.updateOne({ _id: file }, { $set: { references: count.references + 1 } })
          else await counts.insertOne({ _id: file, references: 2 })
          await references.insertOne({
            _id: target.key,
            definitionId: target.definition._id,
            documentId: target.documentId,
            _createdOn: now,
            file,
          })
          return true
        }),
      )
    },

    discard,

    async afterWrite(definition, previous, next) {
      const documentId = previous._id
      if (next === null) {
        await logged(() => discardWhere({ definitionId: definition._id, documentId }), {
          definitionId: definition._id,
          documentId,
        })
        return
      }
      const kept = attachmentIds(next)
      const dropped = [...attachmentIds(previous)].filter((id) => !kept.has(id))
      if (dropped.length === 0) return
      const keys = dropped.map((id) => keyOf(definition, documentId, id))
      await logged(() => discard(keys), { keys })
    },

    async dropDefinition(definition) {
      await logged(() => discardWhere({ definitionId: definition._id }), { definitionId: definition._id })
    },
  }
}
