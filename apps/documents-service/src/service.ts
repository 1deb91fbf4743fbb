import type { ServiceManifest } from '@quire/service-kit'
import { app, type DocumentsAppOptions } from './app.js'

/** The public prefixes: the gateway routes them here, and app.ts mounts its routes under them. */
export const PREFIXES = {
  /** Definitions, and under `/{ddId}/documents` their documents and attachments. */
  definitions: '/api/v2/document-definitions',
  /** `POST /copyAttachments` alone. */
  documents: '/api/v2/documents',
  /** Webhooks of the environment and their deliveries (administrators). */
  webhooks: '/api/v2/webhooks',
} as const

/** app.ts imports PREFIXES from here: `app` is read when the gateway registers it, not while modules load. */
export const service: ServiceManifest<DocumentsAppOptions> = {
  name: 'documents',
  prefixes: Object.values(PREFIXES),
  app: (instance, options) => app(instance, options),
}

export { DocumentsConfigSchema, s3Options, type DocumentsConfig } from './config.js'
export type { DocumentsAppOptions } from './app.js'
export { RECORDS_COMPRESSION_DICTIONARY, RECORDS_UNCARRIED_FIELDS } from './lib/stored-text.js'
/** The operator's face (the `quire` command): the service's own rules and key format on a store, without Fastify. */
export { createDocumentsAdmin as admin, type DocumentsAdmin } from './admin/index.js'
// For tests elsewhere that check what is stored.
export { DOCUMENTS_COLLECTIONS, documentsCollection, type DefinitionRecord } from './collections.js'
