import fp from 'fastify-plugin'
import { DEFAULT_WORK_QUEUE_PER_ENVIRONMENT, type SharedCounts } from '@quire/service-kit'
import type { DocumentsConfig } from '../config.js'
import { createDocumentTransfer, type DocumentTransfer } from '../domain/document-transfer.js'

declare module 'fastify' {
  interface FastifyInstance {
    documentTransfer: DocumentTransfer
  }
}

export interface DocumentTransferOptions {
  config: Pick<
    DocumentsConfig,
    | 'QUIRE_IMPORT_BODY_LIMIT'
    | 'QUIRE_IMPORT_MAX_ROWS'
    | 'QUIRE_TRANSFERS_PER_ENVIRONMENT'
    | 'QUIRE_WORK_QUEUE_PER_ENVIRONMENT'
  >
  /** Where import bodies are spooled: the uploads' folder. */
  spoolDir: string
  /** Where the transfers in progress are counted. */
  counts: SharedCounts
}

/** Decorates `fastify.documentTransfer`: imports and exports of a definition's documents over `fastify.documents`. */
export const documentTransferPlugin = fp<DocumentTransferOptions>(
  async (fastify, { config, spoolDir, counts }) => {
    const limits = {
      bodyLimit: config.QUIRE_IMPORT_BODY_LIMIT,
      maxRows: config.QUIRE_IMPORT_MAX_ROWS,
      perEnvironment: config.QUIRE_TRANSFERS_PER_ENVIRONMENT,
      queueLimit: config.QUIRE_WORK_QUEUE_PER_ENVIRONMENT ?? DEFAULT_WORK_QUEUE_PER_ENVIRONMENT,
    }
    const transfer = createDocumentTransfer({ documents: fastify.documents, spoolDir, limits, counts, clock: Date.now })
    fastify.decorate('documentTransfer', transfer)
  },
  { name: '@quire/documents-transfer', fastify: '5.x', dependencies: ['@quire/documents-documents'] },
)
