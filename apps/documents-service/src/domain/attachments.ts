import { createReadStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { Scope } from '@quire/auth'
import type { Attachment, CopiedAttachments, CopyAttachmentsBody, Document } from '@quire/contracts'
import { FileNotFoundError, type ByteRange, type FileStore } from '@quire/files'
import { newObjectId } from '@quire/records'
import { fail } from '@quire/service-kit'
import type { DefinitionRecord } from '../collections.js'
import { imageDimensions } from '../lib/image-dimensions.js'
import { spool } from '../lib/spool.js'
import {
  attachmentsAt,
  findAttachment,
  parseValuePath,
  withAttachmentsAt,
  withoutAttachment,
} from '../lib/value-path.js'
import { createAttachmentCopies, notFound } from './attachment-copies.js'
import type { AttachmentFiles } from './attachment-files.js'
import type { Definitions } from './definitions.js'
import { isoTime, type Clock } from './deps.js'
import type { Documents } from './documents.js'

/** One file part of an upload, as `@fastify/multipart` streams it. */
interface IncomingFile {
  filename: string
  mimetype: string
  file: Readable
}

interface SaveOptions {
  valuePath: string
  /** The uploaded files become the whole value instead of being appended. */
  replace: boolean
  /** `false`: store the files and only return their metadata. */
  updateDocument: boolean
}

/** An attachment of a document the caller may read, ready to be streamed. */
interface FoundAttachment {
  attachment: Attachment
  /** Strong: a stored file never changes (a new upload or a copy gets a new `_id`). */
  etag: string
  /** The stored file's key: the attachment's own, or the one it shares with the attachment it was copied from. */
  key: string
}

export interface Attachments {
  /** Files first, then the document; on failure whatever was stored is removed again. */
  save(
    scope: Scope,
    definition: DefinitionRecord,
    id: string,
    files: AsyncIterable<IncomingFile>,
    options: SaveOptions,
  ): Promise<{ attachments: Attachment[]; document?: Document }>
  /** 404 `attachment_not_found` unless the document holds it, wherever in its fields. */
  find(scope: Scope, definition: DefinitionRecord, id: string, attachmentId: string): Promise<FoundAttachment>
  /** Size and type as the file store has them (never the document's metadata, which a client writes). */
  stat(found: FoundAttachment): Promise<{ size: number; contentType: string }>
  read(found: FoundAttachment, range?: ByteRange): Promise<{ stream: Readable; size: number }>
  /** Removes it from its field, then its file; resolves to the updated document. */
  remove(scope: Scope, definition: DefinitionRecord, id: string, attachmentId: string): Promise<Document>
  /**
   * Item by item; a failing item stops the call with an error naming it (the ones before stay done). A copy
   * shares the source's stored file (files never change): no byte is copied.
   */
  copy(scope: Scope, items: CopyAttachmentsBody): Promise<CopiedAttachments[]>
}

/** `QUIRE_MAX_FILE_SIZE`, `QUIRE_MAX_FILES`, and where uploads are spooled. */
export interface AttachmentLimits {
  maxFileSize: number
  maxFiles: number
  uploadDir: string
}

const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+$/
const DEFAULT_CONTENT_TYPE = 'application/octet-stream'
const MAX_FILE_NAME = 255

/** Control characters go (they would end up in headers); the rest of the name is kept as sent. */
function cleanFileName(name: string): string {
  const clean = name
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(0, MAX_FILE_NAME)
  return clean === '' ? 'file' : clean
}

const cleanContentType = (type: string): string => (CONTENT_TYPE.test(type) ? type.toLowerCase() : DEFAULT_CONTENT_TYPE)

export function createAttachments(deps: {
  files: FileStore
  attachmentFiles: AttachmentFiles
  documents: Pick<Documents, 'get' | 'modify'>
  definitions: Pick<Definitions, 'resolve'>
  limits: AttachmentLimits
  clock: Clock
}): Attachments {
  const { files, attachmentFiles, documents, clock } = deps
  const { keyOf, discard } = attachmentFiles
  const { maxFileSize, maxFiles, uploadDir } = deps.limits
  const { copy } = createAttachmentCopies(deps)

  /** Spools one part, measures it and stores it under a new key, added to `keys` before anything is written. */
  async function storeFile(
    scope: Scope,
    definition: DefinitionRecord,
    documentId: string,
    part: IncomingFile,
    keys: string[],
  ): Promise<Attachment> {
    const fileName = cleanFileName(part.filename)
    const contentType = cleanContentType(part.mimetype)
    const spooled = await spool(part.file, uploadDir, maxFileSize, fileName)
    try {
      const dimensions = contentType.startsWith('image/') ? await imageDimensions(spooled.path) : undefined
      const attachment: Attachment = {
        _id: newObjectId(),
        _fileName: fileName,
        _size: spooled.size,
        _contentType: contentType,
        store: dimensions ? 'image' : 'file',
        ...(dimensions && { _width: dimensions.width, _height: dimensions.height }),
        _sha256: spooled.sha256,
        _createdOn: isoTime(clock),
        _createdByUserId: scope.userId,
      }
      const key = keyOf(definition, documentId, attachment._id)
      keys.push(key)
      await attachmentFiles.register(definition, documentId, key)
      await files.put(key, createReadStream(spooled.path), { size: spooled.size, contentType })
      return attachment
    } finally {
      await rm(spooled.path, { force: true })
    }
  }

  async function storeAll(
    scope: Scope,
    definition: DefinitionRecord,
    documentId: string,
    parts: AsyncIterable<IncomingFile>,
    keys: string[],
  ): Promise<Attachment[]> {
    const attachments: Attachment[] = []
    for await (const part of parts) {
      if (attachments.length === maxFiles) {
        throw fail(
          'payload_too_large',
          `More than ${maxFiles} files in one call`,
          `At most ${maxFiles} files can be sent at once`,
        )
      }
      attachments.push(await storeFile(scope, definition, documentId, part, keys))
    }
    if (attachments.length === 0) throw fail('validation_error', 'body: no file part in the multipart body')
    return attachments
  }

  return {
    async save(scope, definition, id, parts, { valuePath, replace, updateDocument }) {
      const path = parseValuePath(valuePath)
      const document = await documents.get(scope, definition, id)
      // Before any byte is stored: a path that cannot hold files fails now, not after the upload.
      attachmentsAt(document, path)
      const keys: string[] = []
      try {
        const attachments = await storeAll(scope, definition, document._id, parts, keys)
        if (!updateDocument) return { attachments }
        // The files of the attachments a replace drops go with the write (the documents' pipeline).
        const updated = await documents.modify(scope, definition, document._id, (fields) =>
          withAttachmentsAt(fields, path, (current) => (replace ? attachments : [...current, ...attachments])),
        )
        return { attachments, document: updated }
      } catch (error) {
        await discard(keys)
        throw error
      }
    },

    async find(scope, definition, id, attachmentId) {
      const document = await documents.get(scope, definition, id)
      const attachment = findAttachment(document, attachmentId)
      if (!attachment) throw notFound(attachmentId, `document "${id}"`)
      const key = await attachmentFiles.storedFile(keyOf(definition, document._id, attachment._id))
      return { attachment, etag: `"${attachment._id}"`, key }
    },

    async stat({ attachment, key }) {
      const info = await files.stat(key)
      if (!info) throw notFound(attachment._id, 'the file store')
      return { size: info.size, contentType: info.contentType }
    },

    async read({ attachment, key }, range) {
      try {
        const { stream, size } = await files.get(key, { range })
        return { stream, size }
      } catch (error) {
        throw error instanceof FileNotFoundError ? notFound(attachment._id, 'the file store') : error
      }
    },

    // Its file goes with the write, as any write's dropped attachments do.
    remove(scope, definition, id, attachmentId) {
      return documents.modify(scope, definition, id, (fields) => {
        const without = withoutAttachment(fields, attachmentId)
        if (!without) throw notFound(attachmentId, `document "${id}"`)
        return without
      })
    },

    copy,
  }
}
