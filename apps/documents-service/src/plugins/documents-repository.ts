import fp from 'fastify-plugin'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { createAttachmentFiles } from '../domain/attachment-files.js'
import { createDocuments, type Documents } from '../domain/documents.js'
import { createWritePipeline } from '../domain/write-pipeline.js'

declare module 'fastify' {
  interface FastifyInstance {
    documents: Documents
  }
}

/**
 * Decorates `fastify.documents`: writes run `fastify.actions` and release the attachment files they drop;
 * creates with an `Idempotency-Key` go through `fastify.idempotencyKeys`.
 */
export const documentsPlugin = fp<{ store: RecordStore; files: FileStore }>(
  async (fastify, { store, files }) => {
    const clock = Date.now
    const attachmentFiles = createAttachmentFiles({ store, files, clock, log: fastify.log })
    const { changeLog, changeFeed } = fastify
    const changes = { document: changeLog.document, committed: changeFeed.notify }
    const pipeline = createWritePipeline({
      store,
      actions: fastify.actions,
      webhooks: fastify.webhooks,
      attachmentFiles,
      changes,
      clock,
    })
    fastify.decorate('documents', createDocuments({ store, idempotencyKeys: fastify.idempotencyKeys, pipeline }))
  },
  {
    name: '@quire/documents-documents',
    fastify: '5.x',
    dependencies: [
      '@quire/documents-idempotency',
      '@quire/documents-actions',
      '@quire/documents-webhooks',
      '@quire/documents-change-feed',
    ],
  },
)
