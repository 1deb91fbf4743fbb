import type { Readable } from 'node:stream'
import type { FileStore } from '@quire/files'
import { newObjectId, type RecordStore, type StoredRecord } from '@quire/records'
import { DOCUMENTS_COLLECTIONS, documentsCollection, type DefinitionRecord } from '../collections.js'
import { findAttachment } from '../lib/value-path.js'
import { ensureDocumentCollection } from './indexes.js'
import { attachmentKey } from './keys.js'

/** An attachment's file as an export carries it: `file` names its bytes in the export, shared by copies. */
interface ImportedFile {
  definitionId: string
  documentId: string
  attachmentId: string
  file: string
  contentType: string
}

/**
 * One import into an environment that does not exist yet, by the ids the export used for definitions. Nothing it
 * writes is reachable until the environment is created; `discard` removes it.
 */
export interface DocumentsImport {
  /** The definition under the environment; a new `_id` when the store holds its own already (import beside it). */
  definition(record: DefinitionRecord): Promise<void>
  /** A document of a definition imported before, as stored; inserts may run concurrently. */
  document(definitionId: string, record: StoredRecord): Promise<void>
  /** An attachment of a document imported before: its file stored once, and shared by the attachments naming it again. */
  file(line: ImportedFile, bytes: { size: number; open(): Readable }): Promise<void>
  /** Records how many attachments share each stored file; call once every file is in. */
  finish(): Promise<void>
  /**
   * Removes every definition of the environment with its documents and attachment files (what this import, or an
   * interrupted one, wrote). True when there was anything to remove.
   */
  discard(): Promise<boolean>
}

const PAGE = 500

export function importInto(store: RecordStore, files: FileStore, environmentId: string): DocumentsImport {
  const definitions = DOCUMENTS_COLLECTIONS.definitions.in(store)
  const attachments = DOCUMENTS_COLLECTIONS.attachmentFiles.in(store)
  const sharedFiles = DOCUMENTS_COLLECTIONS.sharedFiles.in(store)
  /** Exported definition id → the definition as imported. */
  const imported = new Map<string, DefinitionRecord>()
  /** Export file name → the key it was stored under, and how many attachments read it. */
  const stored = new Map<string, { key: string; references: number }>()

  const definitionOf = (exportedId: string) => {
    const definition = imported.get(exportedId)
    if (!definition) throw new Error(`no definition ${exportedId} was imported`)
    return definition
  }

  return {
    async definition(exported) {
      const taken = (await definitions.findOne({ _id: exported._id }, { projection: { _id: 1 } })) !== null
      const definition = { ...exported, _id: taken ? newObjectId() : exported._id, _environmentId: environmentId }
      // The record first: whatever is written for it is found (and removed) through it.
      await definitions.insertOne(definition)
      await ensureDocumentCollection(store, definition)
      imported.set(exported._id, definition)
    },

    async document(definitionId, record) {
      const definition = definitionOf(definitionId)
      await store
        .collection(documentsCollection(definition).name)
        .insertOne({ ...record, _environmentId: environmentId, _documentDefinitionId: definition._id })
    },

    async file(line, bytes) {
      const definition = definitionOf(line.definitionId)
      const document = await documentsCollection(definition).in(store).findOne({ _id: line.documentId })
      if (!document || !findAttachment(document, line.attachmentId)) {
        throw new Error(`document ${line.documentId} holds no attachment ${line.attachmentId}`)
      }
      const key = attachmentKey(definition, line.documentId, line.attachmentId)
      const record = { _id: key, definitionId: definition._id, documentId: line.documentId }
      const _createdOn = new Date().toISOString()
      const first = stored.get(line.file)
      if (first) {
        // A copy: it shares the stored file, as `copyAttachments` makes it.
        await attachments.insertOne({ ...record, _createdOn, file: first.key })
        first.references++
        return
      }
      // As the service does: the record first, so a stored file always has one.
      await attachments.insertOne({ ...record, _createdOn })
      await files.put(key, bytes.open(), { size: bytes.size, contentType: line.contentType })
      stored.set(line.file, { key, references: 1 })
    },

    async finish() {
      for (const { key, references } of stored.values()) {
        if (references > 1) await sharedFiles.insertOne({ _id: key, references })
      }
    },

    async discard() {
      let removed = false
      for (const definition of await definitions.find({ _environmentId: environmentId })) {
        removed = true
        for (;;) {
          const page = await attachments.find({ definitionId: definition._id }, { limit: PAGE })
          for (const record of page) {
            if (record.file === undefined) await files.remove(record._id)
            await sharedFiles.deleteOne({ _id: record._id })
            await attachments.deleteOne({ _id: record._id })
          }
          if (page.length < PAGE) break
        }
        await store.dropCollection(documentsCollection(definition).name)
        await definitions.deleteOne({ _id: definition._id })
      }
      return removed
    },
  }
}
