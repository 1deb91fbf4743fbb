import type { DefinitionRecord } from '../collections.js'

/** The key an attachment's file is stored under, as the attachments plugin writes it. */
export const attachmentKey = (
  definition: Pick<DefinitionRecord, '_id' | '_environmentId'>,
  documentId: string,
  attachmentId: string,
): string => `${definition._environmentId}/${definition._id}/${documentId}/${attachmentId}`

/** The attachment id at the end of a key: only the document id (before it) may hold a `/`. */
export const attachmentIdOf = (
  key: string,
  definition: Pick<DefinitionRecord, '_id' | '_environmentId'>,
  documentId: string,
): string => key.slice(attachmentKey(definition, documentId, '').length)
