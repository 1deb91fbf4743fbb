import { createReadStream } from 'node:fs'
import { mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import type { Readable } from 'node:stream'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'
import type { Scope } from '@quire/auth'
import type {
  Attachment,
  CopiedAttachments,
  CopyAttachmentsBody,
  CopySource,
  CopyTarget,
  Document,
} from '@quire/contracts'
import { FileNotFoundError, type ByteRange, type FileStore } from '@quire/files'
import { ConflictError, DuplicateKeyError, newObjectId, type Filter, type RecordStore } from '@quire/records'
import { ApiError, fail } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS, type DefinitionRecord } from '../collections.js'
import type { DocumentsConfig } from '../config.js'
import { imageDimensions } from '../lib/image-dimensions.js'
import { spool } from '../lib/spool.js'
import {
  attachmentsAt,
  findAttachment,
  parseValuePath,
  withAttachmentsAt,
  withoutAttachment,
} from '../lib/value-path.js'
import type { DefinitionsRepository } from './definitions-repository.js'
import type { DocumentsRepository } from './documents-repository.js'

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

interface AttachmentsService {
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

declare module 'fastify' {
  interface FastifyInstance {
    attachments: AttachmentsService
  }
}

interface AttachmentsOptions {
  store: RecordStore
  files: FileStore
  /** `QUIRE_MAX_FILE_SIZE`, `QUIRE_MAX_FILES`, `QUIRE_UPLOAD_DIR`. */
  config: DocumentsConfig
}

const REMOVAL_BATCH = 500
/** Files one copy call may add (over all its items): each is a few record writes, all in one request. */
const MAX_COPIED_FILES = 1000
/** Reference counts are read and written in optimistic transactions: retried when another one wrote first. */
const MAX_ATTEMPTS = 16
const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+$/
const DEFAULT_CONTENT_TYPE = 'application/octet-stream'
const MAX_FILE_NAME = 255

const notFound = (attachmentId: string, where: string) =>
  fail('attachment_not_found', `No attachment "${attachmentId}" in ${where}`, 'The file does not exist')

/** Keys hold only ids the server made, never client text: `<environment>/<definition>/<document>/<attachment>`. */
const keyOf = (definition: DefinitionRecord, documentId: string, attachmentId: string) =>
  `${definition._environmentId}/${definition._id}/${documentId}/${attachmentId}`

/** Control characters go (they would end up in headers); the rest of the name is kept as sent. */
function cleanFileName(name: string): string {
  const clean = name
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(0, MAX_FILE_NAME)
  return clean === '' ? 'file' : clean
}

const cleanContentType = (type: string): string => (CONTENT_TYPE.test(type) ? type.toLowerCase() : DEFAULT_CONTENT_TYPE)

/** `_id` or `externalId`, whichever the copy item gives: the documents repository tries both. */
function documentRef(ref: CopySource | CopyTarget, side: string): string {
  const id = ref._id ?? ref.externalId
  if (id === undefined) throw fail('validation_error', `${side}: _id or externalId is required`)
  return id
}

/** The files named by `fileNames` / `fileIds`, or all; each one asked for must be there. */
function selectFiles(attachments: Attachment[], source: CopySource): Attachment[] {
  if (source.fileNames === undefined && source.fileIds === undefined) return attachments
  const names = new Set(source.fileNames ?? [])
  const ids = new Set(source.fileIds ?? [])
  const selected = attachments.filter((attachment) => names.has(attachment._fileName) || ids.has(attachment._id))
  for (const name of names) {
    if (!selected.some((a) => a._fileName === name)) throw notFound(name, `source ${source.valuePath}`)
  }
  for (const id of ids) if (!selected.some((a) => a._id === id)) throw notFound(id, `source ${source.valuePath}`)
  return selected
}

/** The item's error, with its index and what the items before it did. */
function atItem(error: unknown, index: number): unknown {
  if (!(error instanceof ApiError)) return error
  const done = index === 0 ? 'no item was copied' : `items 0 to ${index - 1} were copied`
  return new ApiError(error.code, `item ${index}: ${error.message} (${done})`, error.userDescription, error.statusCode)
}

/** Runs a reference-count transaction again when a concurrent one changed what it read. */
async function retried<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (error) {
      const lost = error instanceof ConflictError || error instanceof DuplicateKeyError
      if (!lost || attempt === MAX_ATTEMPTS) throw error
    }
  }
}

function attachmentsService(
  options: AttachmentsOptions,
  documents: DocumentsRepository,
  definitions: DefinitionsRepository,
  log: FastifyBaseLogger,
): AttachmentsService {
  const { files, config } = options
  const { QUIRE_MAX_FILE_SIZE: maxFileSize, QUIRE_MAX_FILES: maxFiles } = config
  const uploadDir = config.QUIRE_UPLOAD_DIR ?? tmpdir()
  const { store } = options
  const fileRecords = DOCUMENTS_COLLECTIONS.attachmentFiles.in(store)

  /**
   * Drops one attachment's reference to its stored file, and the file with its last reference. The record of
   * the last one stays (marked `removing`) until the file is gone, so a file in the store always has one.
   */
  async function release(key: string): Promise<void> {
    const unreferenced = await retried(() =>
      store.transaction(async (tx) => {
        const references = DOCUMENTS_COLLECTIONS.attachmentFiles.in(tx)
        const shared = DOCUMENTS_COLLECTIONS.sharedFiles.in(tx)
        const record = await references.findOne({ _id: key })
        const file = record?.file ?? key
        const count = await shared.findOne({ _id: file })
        if (count) {
          if (record) await references.deleteOne({ _id: key })
          if (count.references > 2) {
            await shared.updateOne({ _id: file }, { $set: { references: count.references - 1 } })
          } else {
            await shared.deleteOne({ _id: file })
          }
          return undefined
        }
        // Written, so a copy sharing this file concurrently conflicts with this transaction.
        if (record && !record.removing) await references.updateOne({ _id: key }, { $set: { removing: true } })
        return file
      }),
    )
    if (unreferenced === undefined) return
    await files.remove(unreferenced)
    await fileRecords.deleteOne({ _id: key })
  }

  /** Releases attachments (see `release`); missing ones are fine, so this also cleans up half-done work. */
  async function discard(keys: string[]): Promise<void> {
    for (const key of keys) await release(key)
  }

  /** The target attachment reads the source's stored file; counted so removing either keeps it for the other. */
  async function share(
    source: string,
    target: { key: string; definition: DefinitionRecord; documentId: string },
  ): Promise<void> {
    const shared = await retried(() =>
      store.transaction(async (tx) => {
        const references = DOCUMENTS_COLLECTIONS.attachmentFiles.in(tx)
        const counts = DOCUMENTS_COLLECTIONS.sharedFiles.in(tx)
        const record = await references.findOne({ _id: source })
        if (!record || record.removing) return false
        const file = record.file ?? record._id
        const now = new Date().toISOString()
        await references.updateOne({ _id: source }, { $set: { sharedOn: now } })
        const count = await counts.findOne({ _id: file })
        if (count) await counts.updateOne({ _id: file }, { $set: { references: count.references + 1 } })
        else await counts.insertOne({ _id: file, references: 2 })
        await references.insertOne({
          _id: target.key,
          definitionId: target.definition._id,
          documentId: target.documentId,
          _createdOn: now,
          file,
        })
        return true
      }),
    )
    if (!shared) throw new FileNotFoundError(source)
  }

  async function discardWhere(filter: Filter): Promise<void> {
    for (;;) {
      const batch = await fileRecords.find(filter, { limit: REMOVAL_BATCH, projection: { _id: 1 } })
      await discard(batch.map((record) => record._id))
      if (batch.length < REMOVAL_BATCH) return
    }
  }

  /** The record goes first: a file in the store always has one. */
  async function register(definition: DefinitionRecord, documentId: string, key: string): Promise<void> {
    await fileRecords.insertOne({
      _id: key,
      definitionId: definition._id,
      documentId,
      _createdOn: new Date().toISOString(),
    })
  }

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
        _createdOn: new Date().toISOString(),
        _createdByUserId: scope.userId,
      }
      const key = keyOf(definition, documentId, attachment._id)
      keys.push(key)
      await register(definition, documentId, key)
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

  async function copyItem(
    scope: Scope,
    source: CopySource,
    target: CopyTarget,
    budget: { files: number },
  ): Promise<CopiedAttachments> {
    const sourceDefinition = await definitions.resolve(scope, source.ddName)
    const sourceDocument = await documents.get(scope, sourceDefinition, documentRef(source, 'source'))
    const selected = selectFiles(attachmentsAt(sourceDocument, parseValuePath(source.valuePath)), source)
    budget.files -= selected.length
    if (budget.files < 0) {
      throw fail(
        'payload_too_large',
        `More than ${MAX_COPIED_FILES} files in one copyAttachments call`,
        `At most ${MAX_COPIED_FILES} files can be copied at once`,
      )
    }
    const targetDefinition = await definitions.resolve(scope, target.ddName)
    const targetDocument = await documents.get(scope, targetDefinition, documentRef(target, 'target'))
    const targetPath = parseValuePath(target.valuePath)
    attachmentsAt(targetDocument, targetPath)
    const copies: Attachment[] = []
    const keys: string[] = []
    try {
      for (const original of selected) {
        const copy: Attachment = {
          ...original,
          _id: newObjectId(),
          _createdOn: new Date().toISOString(),
          _createdByUserId: scope.userId,
        }
        const key = keyOf(targetDefinition, targetDocument._id, copy._id)
        keys.push(key)
        try {
          await share(keyOf(sourceDefinition, sourceDocument._id, original._id), {
            key,
            definition: targetDefinition,
            documentId: targetDocument._id,
          })
        } catch (error) {
          throw error instanceof FileNotFoundError
            ? notFound(original._id, `the file store (source ${source.valuePath})`)
            : error
        }
        copies.push(copy)
      }
      if (copies.length > 0) {
        await documents.modify(scope, targetDefinition, targetDocument._id, (fields) =>
          withAttachmentsAt(fields, targetPath, (current) => [...current, ...copies]),
        )
      }
    } catch (error) {
      await discard(keys)
      throw error
    }
    return {
      source: { ...source, _id: sourceDocument._id },
      target: { ...target, _id: targetDocument._id },
      attachments: copies,
    }
  }

  // The document is gone already: leftover files are logged, not turned into a failed delete, and their
  // records stay so they remain findable.
  documents.onRemove(async ({ definition, document }) => {
    const filter = document
      ? { definitionId: definition._id, documentId: document._id }
      : { definitionId: definition._id }
    try {
      await discardWhere(filter)
    } catch (err) {
      log.warn({ err, ...filter }, 'attachment files of a removed document were left in the file store')
    }
  })

  return {
    async save(scope, definition, id, parts, { valuePath, replace, updateDocument }) {
      const path = parseValuePath(valuePath)
      const document = await documents.get(scope, definition, id)
      // Before any byte is stored: a path that cannot hold files fails now, not after the upload.
      attachmentsAt(document, path)
      const keys: string[] = []
      let attachments: Attachment[]
      let updated: Document
      let replaced: Attachment[] = []
      try {
        attachments = await storeAll(scope, definition, document._id, parts, keys)
        if (!updateDocument) return { attachments }
        updated = await documents.modify(scope, definition, document._id, (fields) =>
          withAttachmentsAt(fields, path, (current) => {
            replaced = replace ? current : []
            return replace ? attachments : [...current, ...attachments]
          }),
        )
      } catch (error) {
        await discard(keys)
        throw error
      }
      await discard(replaced.map((attachment) => keyOf(definition, updated._id, attachment._id)))
      return { attachments, document: updated }
    },

    async find(scope, definition, id, attachmentId) {
      const document = await documents.get(scope, definition, id)
      const attachment = findAttachment(document, attachmentId)
      if (!attachment) throw notFound(attachmentId, `document "${id}"`)
      const own = keyOf(definition, document._id, attachment._id)
      const record = await fileRecords.findOne({ _id: own }, { projection: { file: 1 } })
      return { attachment, etag: `"${attachment._id}"`, key: record?.file ?? own }
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

    async remove(scope, definition, id, attachmentId) {
      const document = await documents.modify(scope, definition, id, (fields) => {
        const without = withoutAttachment(fields, attachmentId)
        if (!without) throw notFound(attachmentId, `document "${id}"`)
        return without
      })
      await discard([keyOf(definition, document._id, attachmentId)])
      return document
    },

    async copy(scope, items) {
      const results: CopiedAttachments[] = []
      const budget = { files: MAX_COPIED_FILES }
      for (const [index, { source, target }] of items.entries()) {
        try {
          results.push(await copyItem(scope, source, target, budget))
        } catch (error) {
          throw atItem(error, index)
        }
      }
      return results
    },
  }
}

/** Decorates `fastify.attachments` and removes a document's files with it. */
export const attachmentsPlugin = fp<AttachmentsOptions>(
  async (fastify, options) => {
    if (options.config.QUIRE_UPLOAD_DIR) await mkdir(options.config.QUIRE_UPLOAD_DIR, { recursive: true })
    fastify.decorate('attachments', attachmentsService(options, fastify.documents, fastify.definitions, fastify.log))
  },
  {
    name: '@quire/documents-attachments',
    fastify: '5.x',
    dependencies: ['@quire/documents-documents', '@quire/documents-definitions'],
  },
)
