import type { Readable } from 'node:stream'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS, documentsCollection, type DefinitionRecord } from '../collections.js'
import { findAttachment } from '../lib/value-path.js'
import { attachmentIdOf } from './keys.js'

/** An attachment a download can reach, with the key of the stored file it reads (a copy's is another's). */
export interface ReachableAttachment {
  documentId: string
  attachmentId: string
  file: string
}

/** The definition's documents as stored (their JSON text, never decoded and encoded again), in `_id` order. */
export async function* documentTexts(store: RecordStore, definition: DefinitionRecord, page: number) {
  const documents = documentsCollection(definition).in(store)
  let after: string | undefined
  for (;;) {
    const found = await documents.findText({}, { limit: page, after })
    yield found.map(({ json }) => json)
    if (found.length < page) return
    after = found.at(-1)?._id
  }
}

/** Only what a download can reach: attachments their document holds, not uploads left out of one. */
export async function* reachableAttachments(
  store: RecordStore,
  definition: DefinitionRecord,
): AsyncGenerator<ReachableAttachment> {
  const documents = documentsCollection(definition).in(store)
  const records = await DOCUMENTS_COLLECTIONS.attachmentFiles.in(store).find({ definitionId: definition._id })
  for (const { _id: key, documentId, file } of records) {
    const attachmentId = attachmentIdOf(key, definition, documentId)
    const document = await documents.findOne({ _id: documentId })
    if (document && findAttachment(document, attachmentId)) yield { documentId, attachmentId, file: file ?? key }
  }
}

/** A stored file's bytes and type; null when it is gone (a removal racing the export). */
export async function readStoredFile(
  files: FileStore,
  key: string,
): Promise<{ stream: Readable; contentType: string } | null> {
  const info = await files.stat(key)
  if (!info) return null
  const { stream } = await files.get(key)
  return { stream, contentType: info.contentType }
}
