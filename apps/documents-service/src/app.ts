import { tmpdir } from 'node:os'
import type { FastifyPluginAsync } from 'fastify'
import { authPlugin, workAccountPlugin, type KeyPair } from '@quire/auth'
import type { FileStore } from '@quire/files'
import { recordsIdentity } from '@quire/identity'
import type { RecordStore } from '@quire/records'
import { localCounts, type SharedCounts } from '@quire/service-kit'
import { ensureDocumentsIndexes } from './collections.js'
import type { DocumentsConfig } from './config.js'
import { actionsPlugin } from './plugins/actions.js'
import { attachmentsPlugin } from './plugins/attachments.js'
import { changeFeedPlugin } from './plugins/change-feed.js'
import { definitionsPlugin } from './plugins/definitions-repository.js'
import { documentsPlugin } from './plugins/documents-repository.js'
import { documentTransferPlugin } from './plugins/document-transfer.js'
import { idempotencyPlugin } from './plugins/idempotency.js'
import { reclaimPlugin } from './plugins/reclaim.js'
import { webhooksPlugin } from './plugins/webhooks.js'
import { attachmentRoutes } from './routes/attachments.js'
import { copyAttachmentRoutes } from './routes/copy-attachments.js'
import { documentChangeRoutes } from './routes/document-changes.js'
import { definitionRoutes } from './routes/document-definitions.js'
import { documentRoutes } from './routes/documents.js'
import { documentTransferRoutes } from './routes/document-transfer.js'
import { webhookRoutes } from './routes/webhooks.js'
import { PREFIXES } from './service.js'

export interface DocumentsAppOptions {
  store: RecordStore
  files: FileStore
  keys: KeyPair
  /** Where budgets and caps are counted: every process of the server (absent: this app's own memory). */
  counts?: SharedCounts
  config: DocumentsConfig
}

/** The documents service: definitions, documents, attachments. Never listens itself. */
export const app: FastifyPluginAsync<DocumentsAppOptions> = async (
  fastify,
  { store, files, keys, config, counts = localCounts() },
) => {
  // Only the users service signs: the others get the public key alone.
  await fastify.register(authPlugin, {
    keys: { publicKey: keys.publicKey },
    identity: recordsIdentity(store),
    callerRateLimitPerMinute: config.QUIRE_CALLER_RATE_LIMIT_PER_MINUTE,
    counts,
  })

  await fastify.register(workAccountPlugin, { queueLimit: config.QUIRE_WORK_QUEUE_PER_ENVIRONMENT })
  await ensureDocumentsIndexes(store)
  await fastify.register(idempotencyPlugin, { store })
  await fastify.register(changeFeedPlugin, { store, config, counts })
  await fastify.register(actionsPlugin, { store, config })
  await fastify.register(webhooksPlugin, { store, keys, config })
  await fastify.register(documentsPlugin, { store, files })
  await fastify.register(definitionsPlugin, { store, files })
  await fastify.register(attachmentsPlugin, { store, files, config })
  await fastify.register(reclaimPlugin, { store, files, uploadDir: config.QUIRE_UPLOAD_DIR ?? tmpdir() })
  await fastify.register(documentTransferPlugin, {
    config,
    spoolDir: config.QUIRE_UPLOAD_DIR ?? tmpdir(),
    counts,
  })

  const documents = `${PREFIXES.definitions}/:ddId/documents`
  await fastify.register(definitionRoutes, { prefix: PREFIXES.definitions })
  await fastify.register(documentRoutes, { prefix: documents, config })
  await fastify.register(documentTransferRoutes, { prefix: documents, config })
  await fastify.register(documentChangeRoutes, { prefix: `${documents}/changes` })
  await fastify.register(attachmentRoutes, { prefix: `${documents}/:id/attachments`, config })
  await fastify.register(copyAttachmentRoutes, { prefix: PREFIXES.documents })
  await fastify.register(webhookRoutes, { prefix: PREFIXES.webhooks })
}
