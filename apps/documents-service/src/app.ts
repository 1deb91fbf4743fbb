import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, recordsIdentity, type KeyPair } from '@quire/auth'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import type { DocumentsConfig } from './config.js'
import { attachmentsPlugin } from './plugins/attachments/attachments.js'
import { definitionsPlugin } from './plugins/definitions.js'
import { documentsPlugin } from './plugins/documents.js'
import { attachmentRoutes } from './routes/attachments.js'
import { copyAttachmentRoutes } from './routes/copy-attachments.js'
import { definitionRoutes } from './routes/document-definitions.js'
import { documentRoutes } from './routes/documents.js'

export interface DocumentsAppOptions {
  store: RecordStore
  files: FileStore
  keys: KeyPair
  config: DocumentsConfig
}

const DEFINITIONS_PREFIX = '/api/v2/document-definitions'

/** The documents service: definitions, documents, attachments. Never listens itself. */
export const app: FastifyPluginAsync<DocumentsAppOptions> = async (fastify, { store, files, keys, config }) => {
  // Only the users service signs: the others get the public key alone.
  await fastify.register(authPlugin, { keys: { publicKey: keys.publicKey }, identity: recordsIdentity(store) })
  await fastify.register(documentsPlugin, { store })
  await fastify.register(definitionsPlugin, { store })
  await fastify.register(attachmentsPlugin, { store, files, config })
  await fastify.register(definitionRoutes, { prefix: DEFINITIONS_PREFIX })
  await fastify.register(documentRoutes, { prefix: `${DEFINITIONS_PREFIX}/:ddId/documents` })
  await fastify.register(attachmentRoutes, { prefix: `${DEFINITIONS_PREFIX}/:ddId/documents/:id/attachments`, config })
  await fastify.register(copyAttachmentRoutes, { prefix: '/api/v2/documents' })
}

export default app
export { DocumentsConfigSchema, s3Options, type DocumentsConfig } from './config.js'
export type { DocumentsRepository, RemovalListener } from './plugins/documents.js'
export type { DefinitionsRepository } from './plugins/definitions.js'
