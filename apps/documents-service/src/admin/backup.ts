import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS, documentsCollection } from '../collections.js'
import { findAttachment } from '../lib/value-path.js'
import { attachmentIdOf } from './keys.js'

const PAGE = 500

/**
 * The attachments documents hold whose stored file is missing, by key: in a backup, files removed after its
 * snapshot was taken. Records of files never stored (an upload that failed) are no loss: no document holds them.
 */
export async function lostAttachments(store: RecordStore, files: FileStore): Promise<string[]> {
  const records = DOCUMENTS_COLLECTIONS.attachmentFiles.in(store)
  const lost: string[] = []
  let after: string | undefined
  for (;;) {
    const page = await records.find({}, { limit: PAGE, after })
    for (const { _id: key, definitionId, documentId, file } of page) {
      // A copy reads the stored file of the attachment it was copied from (which may be gone since).
      if (await files.exists(file ?? key)) continue
      const definition = { _id: definitionId, _environmentId: key.slice(0, key.indexOf('/')) }
      const document = await documentsCollection(definition).in(store).findOne({ _id: documentId })
      if (document && findAttachment(document, attachmentIdOf(key, definition, documentId))) lost.push(key)
    }
    if (page.length < PAGE) return lost
    after = page.at(-1)?._id
  }
}
