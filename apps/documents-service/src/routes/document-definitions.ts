import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  ActionRunSchema,
  ActionRunsQuerystringSchema,
  CreateDefinitionBodySchema,
  CreateDefinitionQuerystringSchema,
  DefinitionBodySchema,
  DefinitionParamsSchema,
  DefinitionPatchSchema,
  DefinitionSchema,
  DefinitionsQuerystringSchema,
  DeleteDefinitionQuerystringSchema,
  DeletedSchema,
  IfMatchHeadersSchema,
  IfNoneMatchHeadersSchema,
  ListedDefinitionSchema,
  NotModifiedSchema,
  Ok,
  Page,
} from '@quire/contracts'
import { fail } from '@quire/service-kit'
import { ifNoneMatchHits } from '../lib/if-match.js'
import { parseExclude } from '../lib/list-query.js'

/** The writes and the action runs, behind the administrator check. */
const administration: FastifyPluginAsyncTypebox = async (admin) => {
  admin.addHook('onRequest', admin.auth.requireAdministrator)

  // One path, two meanings: with `sourceId` a copy of that definition, without it a new one.
  admin.post(
    '/',
    {
      // A copy's body is optional (every name in it is): no body is an empty one.
      preValidation: async function emptyBody(request) {
        request.body ??= {}
      },
      schema: {
        querystring: CreateDefinitionQuerystringSchema,
        body: CreateDefinitionBodySchema,
        bodyOptional: true,
        response: { 201: Ok(DefinitionSchema) },
      },
    },
    async function createDefinition(request, reply) {
      const scope = request.scope
      const { sourceId } = request.query
      const data =
        sourceId === undefined
          ? await admin.definitions.create(scope, request.body)
          : await admin.definitions.copy(scope, sourceId, request.body)
      return reply.code(201).send({ status: 'ok' as const, data })
    },
  )

  admin.put(
    '/:ddId',
    {
      schema: {
        params: DefinitionParamsSchema,
        headers: IfMatchHeadersSchema,
        body: DefinitionBodySchema,
        response: { 200: Ok(DefinitionSchema) },
      },
    },
    async function replaceDefinition(request, reply) {
      const { scope, params, body, headers } = request
      const data = await admin.definitions.replace(scope, params.ddId, body, headers['if-match'])
      return reply.header('etag', `"${data._hash}"`).send({ status: 'ok' as const, data })
    },
  )

  admin.patch(
    '/:ddId',
    {
      schema: {
        params: DefinitionParamsSchema,
        headers: IfMatchHeadersSchema,
        body: DefinitionPatchSchema,
        response: { 200: Ok(DefinitionSchema) },
      },
    },
    async function patchDefinition(request, reply) {
      const { scope, params, body, headers } = request
      const data = await admin.definitions.patch(scope, params.ddId, body, headers['if-match'])
      return reply.header('etag', `"${data._hash}"`).send({ status: 'ok' as const, data })
    },
  )

  // Runs may hold what scripts logged about documents a member cannot see: administrators only.
  admin.get(
    '/:ddId/action-runs',
    {
      schema: {
        params: DefinitionParamsSchema,
        querystring: ActionRunsQuerystringSchema,
        response: { 200: Page(ActionRunSchema) },
      },
    },
    async function listActionRuns(request) {
      const definition = await admin.definitions.resolve(request.scope, request.params.ddId)
      const { data, pagination } = await admin.actions.runs(definition, request.query)
      return { status: 'ok' as const, data, pagination }
    },
  )

  admin.delete(
    '/:ddId',
    {
      schema: {
        params: DefinitionParamsSchema,
        headers: IfMatchHeadersSchema,
        querystring: DeleteDefinitionQuerystringSchema,
        response: { 200: Ok(DeletedSchema) },
      },
    },
    async function deleteDefinition(request) {
      const { scope, params, query, headers } = request
      const removed = await admin.definitions.remove(scope, params.ddId, query.force, headers['if-match'])
      return { status: 'ok' as const, data: { _id: removed._id, deleted: true as const } }
    },
  )
}

/** `/api/v2/document-definitions`: members read, administrators create, copy, change and delete. */
export const definitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.get(
    '/',
    { schema: { querystring: DefinitionsQuerystringSchema, response: { 200: Page(ListedDefinitionSchema) } } },
    async function listDefinitions(request) {
      const { limit, after } = request.query
      const exclude = parseExclude(request.query.exclude)
      if (exclude.includes('_id')) throw fail('invalid_query', 'exclude: cannot leave out _id')
      const { data, pagination } = await app.definitions.list(request.scope, { limit, after, exclude })
      return { status: 'ok' as const, data, pagination }
    },
  )

  app.get(
    '/:ddId',
    {
      schema: {
        params: DefinitionParamsSchema,
        headers: IfNoneMatchHeadersSchema,
        response: { 200: Ok(DefinitionSchema), 304: NotModifiedSchema },
      },
    },
    async function getDefinition(request, reply) {
      const data = await app.definitions.get(request.scope, request.params.ddId)
      reply.header('etag', `"${data._hash}"`)
      if (ifNoneMatchHits(request.headers['if-none-match'], data._hash)) return reply.code(304).send(null)
      return { status: 'ok' as const, data }
    },
  )

  await app.register(administration)
}
