import fp from 'fastify-plugin'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { createAttachmentFiles } from '../domain/attachment-files.js'
import { createDefinitions, type Definitions } from '../domain/definitions.js'
import { createDocumentCollections } from '../domain/document-collections.js'

declare module 'fastify' {
  interface FastifyInstance {
    definitions: Definitions
  }
}

/**
 * Decorates `fastify.definitions`: each definition with its documents' collection (indexes, drop) and, once
 * dropped, its attachment files; its actions checked and dropped through `fastify.actions`.
 */
export const definitionsPlugin = fp<{ store: RecordStore; files: FileStore }>(
  async (fastify, { store, files }) => {
    const clock = Date.now
    const definitions = createDefinitions({
      store,
      actions: fastify.actions,
      collections: createDocumentCollections({ store }),
      attachmentFiles: createAttachmentFiles({ store, files, clock, log: fastify.log }),
      changes: { definition: fastify.changeLog.definition, committed: fastify.changeFeed.notify },
      webhooks: fastify.webhooks,
      clock,
    })
    fastify.decorate('definitions', definitions)
  },
  {
    name: '@quire/documents-definitions',
    fastify: '5.x',
    dependencies: ['@quire/documents-actions', '@quire/documents-change-feed', '@quire/documents-webhooks'],
  },
)
