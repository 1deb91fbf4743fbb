import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  AttachmentParamsSchema,
  attachmentBytes,
  AttachmentsParamsSchema,
  DownloadHeadersSchema,
  IfNoneMatchHeadersSchema,
  NotModifiedSchema,
  RemovedAttachmentSchema,
  SaveAttachmentsQuerystringSchema,
  SavedAttachmentsSchema,
  UploadFormSchema,
} from '@quire/contracts'
import { ApiError, fail } from '@quire/service-kit'
import type { DocumentsConfig } from '../config.js'
import { contentRange, requestedRange } from '../lib/byte-range.js'
import { contentDisposition } from '../lib/content-disposition.js'
import { drainBody } from '../lib/drain.js'
import { ifNoneMatchHits } from '../lib/if-match.js'

export interface AttachmentRoutesOptions {
  config: Pick<DocumentsConfig, 'QUIRE_MAX_FILE_SIZE' | 'QUIRE_MAX_FILES'>
}

const REPLACE = /^replace$/i
const BOUNDARY = /;\s*boundary=/i
/** A refused upload's body is read (and dropped) up to this size, so the client gets the answer; past it, close. */
const DRAIN_LIMIT = 1024 * 1024

/** The save route, in its own context: only it parses multipart (elsewhere a multipart body stays 415). */
const saveRoute: FastifyPluginAsyncTypebox<AttachmentRoutesOptions> = async (app, { config }) => {
  // The service counts bytes and files itself (to answer 413 with its own texts); busboy's limits, one
  // above, only stop it reading past them.
  const limits = {
    fileSize: config.QUIRE_MAX_FILE_SIZE + 1,
    files: config.QUIRE_MAX_FILES + 1,
    fields: 20,
    fieldSize: 1024,
  }
  await app.register(multipart, { limits })

  app.route({
    method: ['POST', 'PUT'],
    url: '/',
    schema: {
      params: AttachmentsParamsSchema,
      querystring: SaveAttachmentsQuerystringSchema,
      description:
        "Stores the form's files at `valuePath` of the document (appended, or replacing with `actionType=Replace`). " +
        'Needs a bearer token and the `environment-id` header.',
      multipart: UploadFormSchema,
      response: { 201: SavedAttachmentsSchema },
    },
    // A failed upload may leave the client mid-body. Refused before the body was read (a bad `valuePath`, an
    // unknown document...), a small body is read first so the client sees the answer; otherwise (a large
    // body, or one failing part way, like a 413) closing the connection stops it sending the rest; the kit's
    // server closes it lingering (the body unread to its end), so a reset does not take the answer away.
    onError: async function answerReadably(request, reply) {
      const length = Number(request.headers['content-length'] ?? Number.NaN)
      const whole = await drainBody(request.raw, Number.isNaN(length) ? undefined : length, DRAIN_LIMIT)
      if (!whole) reply.header('connection', 'close')
    },
    handler: async function saveAttachments(request, reply) {
      if (!request.isMultipart()) {
        throw fail(
          'unsupported_media_type',
          'Attachments are sent as multipart/form-data',
          'The files must be sent as a form upload',
        )
      }
      if (!BOUNDARY.test(request.headers['content-type'] ?? '')) {
        throw fail(
          'validation_error',
          'headers/content-type: multipart/form-data needs a boundary',
          'The upload is malformed',
        )
      }
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { valuePath, actionType, shouldUpdateDocument } = request.query
      const options = { valuePath, replace: REPLACE.test(actionType), updateDocument: shouldUpdateDocument }
      const data = await app.attachments.save(scope, definition, request.params.id, request.files(), options)
      return reply.code(201).send({ status: 'ok' as const, data })
    },
  })
}

/** `.../documents/{id}/attachments`: every member of the environment, on the documents they may see. */
export const attachmentRoutes: FastifyPluginAsyncTypebox<AttachmentRoutesOptions> = async (app, { config }) => {
  app.addHook('onRequest', app.auth.requireEnvironment)
  await app.register(saveRoute, { config })

  // HEAD is declared, not derived: Fastify's derived HEAD would read the whole file to discard it.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/:attachmentId',
    schema: {
      params: AttachmentParamsSchema,
      headers: Type.Composite([DownloadHeadersSchema, IfNoneMatchHeadersSchema]),
      description:
        "The file's bytes, with its type, `ETag` and `Content-Disposition`; one range with `Range` (206). " +
        'Needs a bearer token and the `environment-id` header.',
      response: {
        200: attachmentBytes('The whole file'),
        206: attachmentBytes('The range asked for'),
        304: NotModifiedSchema,
      },
    },
    handler: async function downloadAttachment(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const found = await app.attachments.find(scope, definition, request.params.id, request.params.attachmentId)
      reply.header('accept-ranges', 'bytes').header('etag', found.etag)
      // Conditions before Range (RFC 9110 13.2.2): a current copy is 304 whatever part was asked for.
      if (ifNoneMatchHits(request.headers['if-none-match'], found.attachment._id)) return reply.code(304).send(null)
      const { size, contentType } = await app.attachments.stat(found)
      const range = requestedRange(request.headers.range, request.headers['if-range'], size, found.etag)
      if (range === 'unsatisfiable') {
        reply.header('content-range', contentRange(size))
        throw new ApiError(
          'validation_error',
          `Range "${request.headers.range}" is outside the ${size} bytes of the file`,
          'The requested part of the file does not exist',
          416,
        )
      }
      if (range) reply.code(206).header('content-range', contentRange(size, range))
      reply
        .type(contentType)
        .header('content-length', range ? range.end - range.start + 1 : size)
        .header('content-disposition', contentDisposition(found.attachment._fileName))
        .header('x-content-type-options', 'nosniff')
      if (request.method === 'HEAD') return reply.send()
      const { stream } = await app.attachments.read(found, range)
      return reply.send(stream)
    },
  })

  app.delete(
    '/:attachmentId',
    { schema: { params: AttachmentParamsSchema, response: { 200: RemovedAttachmentSchema } } },
    async function removeAttachment(request) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { id, attachmentId } = request.params
      const document = await app.attachments.remove(scope, definition, id, attachmentId)
      return { status: 'ok' as const, data: { _id: attachmentId, deleted: true as const, document } }
    },
  )
}
