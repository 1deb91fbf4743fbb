import type { ServiceManifest } from '@quire/service-kit'
import { app, type DocumentsAppOptions } from './app.js'

/** The public prefixes: the gateway routes them here, and app.ts mounts its routes under them. */
export const PREFIXES = {
  /** Definitions, and under `/{ddId}/documents` their documents and attachments. */
  definitions: '/api/v2/document-definitions',
  /** `POST /copyAttachments` alone. */
  documents: '/api/v2/documents',
} as const

/** app.ts imports PREFIXES from here: `app` is read when the gateway registers it, not while modules load. */
export const service: ServiceManifest<DocumentsAppOptions> = {
  name: 'documents',
  prefixes: Object.values(PREFIXES),
  app: (instance, options) => app(instance, options),
}

export { DocumentsConfigSchema, s3Options, type DocumentsConfig } from './config.js'
export type { DocumentsAppOptions } from './app.js'
export { RECORDS_COMPRESSION_DICTIONARY } from './lib/stored-text.js'
// For the `quire` command (apps/cli): backup, export and import read and write these collections as this service does.
export {
  DOCUMENTS_COLLECTIONS,
  declaredIndex,
  documentsCollection,
  ensureDocumentsIndexes,
  type DefinitionRecord,
} from './collections.js'
export { findAttachment } from './lib/value-path.js'
