import { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  DefinitionParamsSchema,
  ExportQuerystringSchema,
  ExportResponseSchema,
  IdempotencyHeadersSchema,
  ImportBodySchema,
  ImportSummarySchema,
  Ok,
  TRANSFER_FORMATS,
  TRANSFER_MEDIA_TYPES,
  type TransferFormat,
} from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { DocumentsConfig } from '../config.js'
import { contentDisposition } from '../lib/content-disposition.js'
import { drainBody } from '../lib/drain.js'

export interface DocumentTransferRoutesOptions {
  config: Pick<DocumentsConfig, 'QUIRE_IMPORT_BODY_LIMIT'>
}

/** What each format is answered as. */
const ANSWER_TYPES: Readonly<Record<TransferFormat, string>> = {
  ndjson: `${TRANSFER_MEDIA_TYPES.ndjson}; charset=utf-8`,
  json: `${TRANSFER_MEDIA_TYPES.json}; charset=utf-8`,
  csv: `${TRANSFER_MEDIA_TYPES.csv}; charset=utf-8`,
}
const FORMAT_OF = new Map<string, TransferFormat>(
  TRANSFER_FORMATS.map((format) => [TRANSFER_MEDIA_TYPES[format], format]),
)
/** A refused import's body is read (and dropped) up to this size, so the client gets the answer; past it, close. */
const DRAIN_LIMIT = 1024 * 1024

const tooLarge = (limit: number) =>
  fail(
    'payload_too_large',
    `body: larger than the import limit of ${limit} bytes (QUIRE_IMPORT_BODY_LIMIT)`,
    'The file is too large for one import; split it',
  )

/** The import route, in its own context: only it reads these bodies as streams (JSON included). */
const importRoute: FastifyPluginAsyncTypebox<DocumentTransferRoutesOptions> = async (app, { config }) => {
  app.removeAllContentTypeParsers()
  // The handler reads the body itself: spooled to disk as it arrives, never held in memory.
  app.addContentTypeParser([...FORMAT_OF.keys()], function streamedBody(_request, payload, done) {
    done(null, payload)
  })

  app.post(
    '/import',
    {
      schema: {
        params: DefinitionParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: ImportBodySchema,
        bodyMediaTypes: [...FORMAT_OF.keys()],
        description:
          'Creates a document per record of the body (NDJSON, a JSON array or CSV, by `Content-Type`) under the ' +
          "rules of `.../new`; answers how many were created, and each refused record's row and reason. " +
          'Needs a bearer token and the `environment-id` header.',
        response: { 200: Ok(ImportSummarySchema) },
      },
      // As an upload: a refusal before the body was read answers a client that is still sending it.
      onError: async function answerReadably(request, reply) {
        const length = Number(request.headers['content-length'] ?? Number.NaN)
        const whole = await drainBody(request.raw, Number.isNaN(length) ? undefined : length, DRAIN_LIMIT)
        if (!whole) reply.header('connection', 'close')
      },
    },
    async function importDocuments(request, reply) {
      const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? ''
      const format = FORMAT_OF.get(type)
      const body = request.body
      if (!format || !(body instanceof Readable)) {
        throw fail(
          'unsupported_media_type',
          `headers/content-type: an import is ${[...FORMAT_OF.keys()].join(', ')}`,
          'The file must be NDJSON, a JSON array or CSV',
        )
      }
      const length = Number(request.headers['content-length'])
      if (length > config.QUIRE_IMPORT_BODY_LIMIT) throw tooLarge(config.QUIRE_IMPORT_BODY_LIMIT)
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const key = request.headers['idempotency-key']
      const { summary, replayed } = await app.documentTransfer.importDocuments(scope, definition, body, format, key)
      if (replayed) reply.header('idempotent-replayed', 'true')
      return { status: 'ok' as const, data: summary }
    },
  )
}

/** `GET .../documents/export`, `POST .../documents/import`: every member, within the documents they may see. */
export const documentTransferRoutes: FastifyPluginAsyncTypebox<DocumentTransferRoutesOptions> = async (
  app,
  { config },
) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.get(
    '/export',
    {
      schema: {
        params: DefinitionParamsSchema,
        querystring: ExportQuerystringSchema,
        description:
          'Every document matching `query` that the caller may see, streamed as a file to save: NDJSON (the ' +
          'default), a JSON array, or CSV with a header row. Needs a bearer token and the `environment-id` header.',
        response: { 200: ExportResponseSchema },
      },
    },
    async function exportDocuments(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { format = 'ndjson', ...query } = request.query
      const stream = await app.documentTransfer.exportDocuments(scope, definition, query, format)
      // A HEAD answer never reads the stream: ended with the response, it gives its environment's place back.
      reply.raw.once('close', () => stream.destroy())
      return reply
        .type(ANSWER_TYPES[format])
        .header('content-disposition', contentDisposition(`${definition.name}.${format}`))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .send(stream)
    },
  )

  await app.register(importRoute, { config })
}
