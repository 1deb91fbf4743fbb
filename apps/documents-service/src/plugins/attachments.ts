import { mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import fp from 'fastify-plugin'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import type { DocumentsConfig } from '../config.js'
import { createAttachmentFiles } from '../domain/attachment-files.js'
import { createAttachments, type Attachments } from '../domain/attachments.js'

declare module 'fastify' {
  interface FastifyInstance {
    attachments: Attachments
  }
}

interface AttachmentsOptions {
  store: RecordStore
  files: FileStore
  /** `QUIRE_MAX_FILE_SIZE`, `QUIRE_MAX_FILES`, `QUIRE_UPLOAD_DIR`. */
  config: DocumentsConfig
}

/** Decorates `fastify.attachments`: uploads, downloads and copies, on `fastify.documents` and `fastify.definitions`. */
export const attachmentsPlugin = fp<AttachmentsOptions>(
  async (fastify, { store, files, config }) => {
    const uploadDir = config.QUIRE_UPLOAD_DIR ?? tmpdir()
    if (config.QUIRE_UPLOAD_DIR) await mkdir(uploadDir, { recursive: true })
    const attachments = createAttachments({
      files,
      attachmentFiles: createAttachmentFiles({ store, files, clock: Date.now, log: fastify.log }),
      documents: fastify.documents,
      definitions: fastify.definitions,
      limits: { maxFileSize: config.QUIRE_MAX_FILE_SIZE, maxFiles: config.QUIRE_MAX_FILES, uploadDir },
      clock: Date.now,
    })
    fastify.decorate('attachments', attachments)
  },
  {
    name: '@quire/documents-attachments',
    fastify: '5.x',
    dependencies: ['@quire/documents-documents', '@quire/documents-definitions'],
  },
)
