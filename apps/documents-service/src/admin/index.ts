import type { Readable } from 'node:stream'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import {
  DOCUMENTS_COLLECTIONS,
  documentsCollection,
  ensureDocumentsIndexes,
  type DefinitionRecord,
} from '../collections.js'
import { lostAttachments } from './backup.js'
import { documentTexts, reachableAttachments, readStoredFile, type ReachableAttachment } from './export.js'
import { importInto, type DocumentsImport } from './import.js'
import { ensureDocumentCollections } from './indexes.js'

/** What the `quire` command does to the documents service's data, in the service's own key format. */
export interface DocumentsAdmin {
  /** The fixed collections the service owns, by name (each definition adds one for its documents). */
  readonly collections: readonly string[]
  /** Creates the missing indexes of the fixed collections (what a start does). */
  ensureIndexes(): Promise<void>
  /**
   * Creates the missing indexes of every definition's document collection; `progress` is told how many there are,
   * then of each one done. Resolves to how many there are.
   */
  ensureDocumentCollections(progress: (total: number) => { tick(): void; stop(): void }): Promise<number>
  /** The environment's definitions, as stored. */
  definitions(environmentId: string): Promise<DefinitionRecord[]>
  countDocuments(definition: DefinitionRecord): Promise<number>
  /** The definition's documents as their stored JSON text, in pages of `page`, in `_id` order. */
  documentTexts(definition: DefinitionRecord, page: number): AsyncIterable<string[]>
  /** The definition's attachments a download can reach, with the stored file each reads. */
  attachments(definition: DefinitionRecord): AsyncIterable<ReachableAttachment>
  /** A stored file's bytes and type; null when it is gone. Needs the file store. */
  readFile(key: string): Promise<{ stream: Readable; contentType: string } | null>
  /** An import into `environmentId`, which must not exist yet. Needs the file store. */
  importInto(environmentId: string): DocumentsImport
  /** Backup check: the attachments documents hold whose stored file is missing, by key. Needs the file store. */
  lostAttachments(): Promise<string[]>
}

/** `files`: the file store, for what reads or writes attachment bytes. */
export function createDocumentsAdmin(store: RecordStore, files?: FileStore): DocumentsAdmin {
  const fileStore = (): FileStore => {
    if (!files) throw new Error('the documents admin face was opened without the file store')
    return files
  }
  return {
    collections: Object.values(DOCUMENTS_COLLECTIONS).map(({ name }) => name),
    ensureIndexes: () => ensureDocumentsIndexes(store),
    ensureDocumentCollections: (progress) => ensureDocumentCollections(store, progress),
    definitions: (environmentId) => DOCUMENTS_COLLECTIONS.definitions.in(store).find({ _environmentId: environmentId }),
    countDocuments: (definition) => documentsCollection(definition).in(store).count({}),
    documentTexts: (definition, page) => documentTexts(store, definition, page),
    attachments: (definition) => reachableAttachments(store, definition),
    readFile: (key) => readStoredFile(fileStore(), key),
    importInto: (environmentId) => importInto(store, fileStore(), environmentId),
    lostAttachments: () => lostAttachments(store, fileStore()),
  }
}
