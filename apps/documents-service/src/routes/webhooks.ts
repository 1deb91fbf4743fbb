import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Scope } from '@quire/auth'
import {
  CreateWebhookBodySchema,
  DeletedSchema,
  DeliveriesQuerystringSchema,
  DeliveryParamsSchema,
  DeliverySchema,
  Ok,
  Page,
  WebhookCreatedSchema,
  WebhookParamsSchema,
  WebhookPatchSchema,
  WebhookSchema,
  WebhookSecretSchema,
  WebhooksQuerystringSchema,
} from '@quire/contracts'

/** `/api/v2/webhooks`: an environment's webhooks and their deliveries, for its administrators alone. */
export const webhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)
  app.addHook('onRequest', app.auth.requireAdministrator)

  /** A body's `ddId` (a definition `_id` or name) resolved in the caller's environment; `null` clears it. */
  async function definitionOf(scope: Scope, ddId: string | null | undefined) {
    if (ddId === undefined) return undefined
    if (ddId === null) return { definitionId: null }
    return { definitionId: (await app.definitions.resolve(scope, ddId))._id }
  }

  app.post(
    '/',
    { schema: { body: CreateWebhookBodySchema, response: { 201: Ok(WebhookCreatedSchema) } } },
    async function createWebhook(request, reply) {
      const { scope, body } = request
      const data = await app.webhooks.create(scope, body, await definitionOf(scope, body.ddId))
      return reply.code(201).send({ status: 'ok' as const, data })
    },
  )

  app.get(
    '/',
    { schema: { querystring: WebhooksQuerystringSchema, response: { 200: Page(WebhookSchema) } } },
    async function listWebhooks(request) {
      const { data, pagination } = await app.webhooks.list(request.scope, request.query)
      return { status: 'ok' as const, data, pagination }
    },
  )

  app.get(
    '/:webhookId',
    { schema: { params: WebhookParamsSchema, response: { 200: Ok(WebhookSchema) } } },
    async function getWebhook(request) {
      return { status: 'ok' as const, data: await app.webhooks.get(request.scope, request.params.webhookId) }
    },
  )

  app.patch(
    '/:webhookId',
    { schema: { params: WebhookParamsSchema, body: WebhookPatchSchema, response: { 200: Ok(WebhookSchema) } } },
    async function patchWebhook(request) {
      const { scope, params, body } = request
      const data = await app.webhooks.patch(scope, params.webhookId, body, await definitionOf(scope, body.ddId))
      return { status: 'ok' as const, data }
    },
  )

  app.delete(
    '/:webhookId',
    { schema: { params: WebhookParamsSchema, response: { 200: Ok(DeletedSchema) } } },
    async function removeWebhook(request) {
      return { status: 'ok' as const, data: await app.webhooks.remove(request.scope, request.params.webhookId) }
    },
  )

  app.post(
    '/:webhookId/rotate-secret',
    { schema: { params: WebhookParamsSchema, response: { 200: Ok(WebhookSecretSchema) } } },
    async function rotateSecret(request) {
      return { status: 'ok' as const, data: await app.webhooks.rotate(request.scope, request.params.webhookId) }
    },
  )

  app.get(
    '/:webhookId/deliveries',
    {
      schema: {
        params: WebhookParamsSchema,
        querystring: DeliveriesQuerystringSchema,
        response: { 200: Page(DeliverySchema) },
      },
    },
    async function listDeliveries(request) {
      const { scope, params, query } = request
      const webhook = await app.webhooks.find(scope, params.webhookId)
      const { data, pagination } = await app.webhooks.listDeliveries(scope.environmentId, webhook._id, query)
      return { status: 'ok' as const, data, pagination }
    },
  )

  app.post(
    '/:webhookId/deliveries/:deliveryId/redeliver',
    { schema: { params: DeliveryParamsSchema, response: { 202: Ok(DeliverySchema) } } },
    async function redeliver(request, reply) {
      const { scope, params } = request
      const webhook = await app.webhooks.find(scope, params.webhookId)
      const data = await app.webhooks.redeliver(scope.environmentId, webhook._id, params.deliveryId)
      return reply.code(202).send({ status: 'ok' as const, data })
    },
  )
}
