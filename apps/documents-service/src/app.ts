import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, recordsIdentity, type KeyPair } from '@quire/auth'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import type { DocumentsConfig } from './config.js'

export interface DocumentsAppOptions {
  store: RecordStore
  files: FileStore
  keys: KeyPair
  config: DocumentsConfig
}

/** The documents service: definitions, documents, attachments. Never listens itself. */
export const app: FastifyPluginAsync<DocumentsAppOptions> = async (fastify, { store, keys }) => {
  // Only the users service signs: the others get the public key alone.
  await fastify.register(authPlugin, { keys: { publicKey: keys.publicKey }, identity: recordsIdentity(store) })
}

export default app
export { DocumentsConfigSchema, s3Options, type DocumentsConfig } from './config.js'
