import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorCodes } from 'fastify'
import {
  ACTION_INPUT_LIMIT,
  ActionInputSchema,
  ActionParamsSchema,
  ActionResultSchema,
  BulkBodySchema,
  BulkResultSchema,
  DefinitionParamsSchema,
  DeletedSchema,
  DocumentBodySchema,
  DocumentParamsSchema,
  DocumentPatchSchema,
  DocumentSchema,
  IdempotencyHeadersSchema,
  IfMatchHeadersSchema,
  IfNoneMatchHeadersSchema,
  ListedDocumentSchema,
  ListQuerystringSchema,
  NotModifiedSchema,
  Ok,
  Page,
} from '@quire/contracts'
import type { DocumentsConfig } from '../config.js'
import { checkInputDepth, manualAction } from '../lib/actions.js'
import { ifNoneMatchHits } from '../lib/if-match.js'
import { parseListQuery } from '../lib/list-query.js'
import { pageText } from '../lib/stored-text.js'

/**
 * Documents are open-ended (user fields beside the declared system fields), so a compiled serializer would
 * stringify each field on its own: JSON.stringify of the whole answer is faster, by more than twice for a page. The schemas
 * still document the answers.
 */
const stringifyWhole = () => (answer: unknown) => JSON.stringify(answer)
const JSON_TYPE = 'application/json; charset=utf-8'
const MERGE_PATCH = 'application/merge-patch+json'
const isMergePatch = (type: string | undefined) => type?.split(';')[0]?.trim().toLowerCase() === MERGE_PATCH
/** Sent already serialized (a page, a document): the schema documents the answer, the handler sends its text. */
const SerializedPage = Type.Unsafe<string>(Page(ListedDocumentSchema))
const SerializedDocument = Type.Unsafe<string>(DocumentSchema)

export interface DocumentRoutesOptions {
  config: Pick<DocumentsConfig, 'QUIRE_BULK_BODY_LIMIT'>
}

/** `/api/v2/document-definitions/{ddId}/documents`: every member of the environment, within what they may see. */
export const documentRoutes: FastifyPluginAsyncTypebox<DocumentRoutesOptions> = async (app, { config }) => {
  app.addHook('onRequest', app.auth.requireEnvironment)
  // PATCH alone reads JSON merge patches (RFC 7396); the other writes answer them 415 as any other type.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser(MERGE_PATCH, { parseAs: 'string' }, function mergePatchBody(request, body, done) {
    if (request.method !== 'PATCH') done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(MERGE_PATCH), undefined)
    else parseJson(request, body.toString(), done)
  })

  app.get(
    '/',
    {
      schema: { params: DefinitionParamsSchema, querystring: ListQuerystringSchema, response: { 200: SerializedPage } },
      serializerCompiler: stringifyWhole,
    },
    async function listDocuments(request, reply) {
      const query = parseListQuery(request.query)
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { items, pagination } = await app.documents.list(scope, definition, query)
      // Sent as assembled from the documents' JSON text (a string is not serialized again); the schema describes it.
      return reply.type(JSON_TYPE).send(pageText(items, pagination))
    },
  )

  // The one bare answer of the API (spec): the document itself, its `_hash` as the ETag.
  app.get(
    '/:id',
    {
      schema: {
        params: DocumentParamsSchema,
        headers: IfNoneMatchHeadersSchema,
        response: { 200: SerializedDocument, 304: NotModifiedSchema },
      },
      serializerCompiler: stringifyWhole,
    },
    async function getDocument(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { json, hash } = await app.documents.read(scope, definition, request.params.id)
      reply.header('etag', `"${hash}"`)
      if (ifNoneMatchHits(request.headers['if-none-match'], hash)) return reply.code(304).send(null)
      return reply.type(JSON_TYPE).send(json)
    },
  )

  app.post(
    '/new',
    {
      // The body is optional: no body at all means a document with defaults only.
      preValidation: async function emptyBody(request) {
        request.body ??= {}
      },
      schema: {
        params: DefinitionParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: DocumentBodySchema,
        bodyOptional: true,
        response: { 201: Ok(DocumentSchema) },
      },
      serializerCompiler: stringifyWhole,
    },
    async function createDocument(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const key = request.headers['idempotency-key']
      const { document, replayed } = await app.documents.create(scope, definition, request.body, key)
      if (replayed) reply.header('idempotent-replayed', 'true')
      return reply
        .code(201)
        .header('etag', `"${document._hash}"`)
        .send({ status: 'ok' as const, data: document })
    },
  )

  // Up to 1000 operations: the one route whose body may pass the server's limit (QUIRE_BULK_BODY_LIMIT).
  app.post(
    '/bulk',
    {
      bodyLimit: config.QUIRE_BULK_BODY_LIMIT,
      schema: {
        params: DefinitionParamsSchema,
        headers: IdempotencyHeadersSchema,
        body: BulkBodySchema,
        response: { 200: Ok(Type.Array(BulkResultSchema)) },
      },
      serializerCompiler: stringifyWhole,
    },
    async function bulkDocuments(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const key = request.headers['idempotency-key']
      const { results, replayed } = await app.documents.bulk(scope, definition, request.body.operations, key)
      if (replayed) reply.header('idempotent-replayed', 'true')
      return { status: 'ok' as const, data: results }
    },
  )

  const writeSchema = {
    params: DocumentParamsSchema,
    headers: IfMatchHeadersSchema,
    response: { 200: Ok(DocumentSchema) },
  }

  app.put(
    '/:id',
    { schema: { ...writeSchema, body: DocumentBodySchema }, serializerCompiler: stringifyWhole },
    async function replaceDocument(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { id } = request.params
      const document = await app.documents.replace(scope, definition, id, request.body, request.headers['if-match'])
      return reply.header('etag', `"${document._hash}"`).send({ status: 'ok' as const, data: document })
    },
  )

  app.patch(
    '/:id',
    {
      schema: { ...writeSchema, body: DocumentPatchSchema, bodyMediaTypes: ['application/json', MERGE_PATCH] },
      serializerCompiler: stringifyWhole,
    },
    async function patchDocument(request, reply) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const { id } = request.params
      const format = isMergePatch(request.headers['content-type']) ? 'merge-patch' : 'fields'
      const ifMatch = request.headers['if-match']
      const document = await app.documents.patch(scope, definition, id, request.body, ifMatch, format)
      return reply.header('etag', `"${document._hash}"`).send({ status: 'ok' as const, data: document })
    },
  )

  // A manual action on a document: any member who can see it; the script runs as them.
  app.post(
    '/:id/actions/:name',
    {
      bodyLimit: ACTION_INPUT_LIMIT,
      preValidation: async function noBody(request) {
        request.body ??= null
      },
      schema: {
        params: ActionParamsSchema,
        body: ActionInputSchema,
        bodyOptional: true,
        response: { 200: Ok(ActionResultSchema) },
      },
      serializerCompiler: stringifyWhole,
    },
    async function runAction(request) {
      checkInputDepth(request.body)
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const action = manualAction(definition, request.params.name)
      const document = await app.documents.get(scope, definition, request.params.id)
      const data = await app.actions.manual(scope, definition, action, document, request.body)
      return { status: 'ok' as const, data }
    },
  )

  app.delete(
    '/:id',
    { schema: { params: DocumentParamsSchema, headers: IfMatchHeadersSchema, response: { 200: Ok(DeletedSchema) } } },
    async function deleteDocument(request) {
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      const removed = await app.documents.remove(scope, definition, request.params.id, request.headers['if-match'])
      return { status: 'ok' as const, data: { _id: removed._id, deleted: true as const } }
    },
  )
}
