import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  ActionRunSchema,
  ActionRunsQuerystringSchema,
  CreateDefinitionBodySchema,
  CreateDefinitionQuerystringSchema,
  DefinitionBodySchema,
  DefinitionParamsSchema,
  DefinitionPatchSchema,
  DefinitionSchema,
  DeleteDefinitionQuerystringSchema,
  DeletedSchema,
  IdSchema,
  LimitSchema,
  Ok,
  Page,
} from '@quire/contracts'

const ListQuerystringSchema = Type.Object({ limit: LimitSchema, after: Type.Optional(IdSchema) })

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
    { schema: { params: DefinitionParamsSchema, body: DefinitionBodySchema, response: { 200: Ok(DefinitionSchema) } } },
    async function replaceDefinition(request) {
      return {
        status: 'ok' as const,
        data: await admin.definitions.replace(request.scope, request.params.ddId, request.body),
      }
    },
  )

  admin.patch(
    '/:ddId',
    {
      schema: { params: DefinitionParamsSchema, body: DefinitionPatchSchema, response: { 200: Ok(DefinitionSchema) } },
    },
    async function patchDefinition(request) {
      return {
        status: 'ok' as const,
        data: await admin.definitions.patch(request.scope, request.params.ddId, request.body),
      }
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
        querystring: DeleteDefinitionQuerystringSchema,
        response: { 200: Ok(DeletedSchema) },
      },
    },
    async function deleteDefinition(request) {
      const removed = await admin.definitions.remove(request.scope, request.params.ddId, request.query.force)
      return { status: 'ok' as const, data: { _id: removed._id, deleted: true as const } }
    },
  )
}

/** `/api/v2/document-definitions`: members read, administrators create, copy, change and delete. */
export const definitionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.get(
    '/',
    { schema: { querystring: ListQuerystringSchema, response: { 200: Page(DefinitionSchema) } } },
    async function listDefinitions(request) {
      const { data, pagination } = await app.definitions.list(request.scope, request.query)
      return { status: 'ok' as const, data, pagination }
    },
  )

  app.get(
    '/:ddId',
    { schema: { params: DefinitionParamsSchema, response: { 200: Ok(DefinitionSchema) } } },
    async function getDefinition(request) {
      return { status: 'ok' as const, data: await app.definitions.get(request.scope, request.params.ddId) }
    },
  )

  await app.register(administration)
}
