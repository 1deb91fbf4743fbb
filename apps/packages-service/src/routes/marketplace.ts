import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { describeRoutes } from '@quire/service-kit'
import {
  MarketplacePackageSchema,
  Ok,
  Page,
  PackageBodySchema,
  PackageParamsSchema,
  PackageSchema,
  PackagesQuerySchema,
  PackageVersionBodySchema,
  PackageVersionParamsSchema,
  PackageVersionPatchSchema,
  PackageVersionSchema,
} from '@quire/contracts'

/**
 * `/api/v2/packages`: the marketplace, the same for every environment, so no `environment-id` is needed.
 * Any signed-in caller may browse it (administrators pick versions to install there); super-administrators
 * manage it and also see versions that are not on the marketplace.
 */
export const marketplaceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.authenticate)
  describeRoutes(app, { auth: 'bearer' })
  const superAdministrator = { onRequest: app.auth.requireSuperAdministrator }

  app.get(
    '/',
    { schema: { querystring: PackagesQuerySchema, response: { 200: Page(MarketplacePackageSchema) } } },
    async function listPackages(request) {
      const { limit } = request.query
      const { packages, hasNext } = await app.marketplace.listPackages(request.query, request.caller.superAdministrator)
      const last = packages.at(-1)
      const next =
        hasNext && last ? new URLSearchParams({ limit: String(limit), after: last._id }).toString() : undefined
      const pagination = { hasPrevious: request.query.after !== undefined, hasNext, type: 'cursor' as const, next }
      return { status: 'ok' as const, data: packages, pagination }
    },
  )

  app.post(
    '/',
    { ...superAdministrator, schema: { body: PackageBodySchema, response: { 201: Ok(PackageSchema) } } },
    async function createPackage(request, reply) {
      const created = await app.marketplace.createPackage(request.body, request.caller.userId)
      return reply.code(201).send({ status: 'ok', data: created })
    },
  )

  app.post(
    '/:packageId/versions',
    {
      ...superAdministrator,
      schema: {
        params: PackageParamsSchema,
        body: PackageVersionBodySchema,
        response: { 201: Ok(PackageVersionSchema) },
      },
    },
    async function addVersion(request, reply) {
      const version = await app.marketplace.addVersion(request.params.packageId, request.body, request.caller.userId)
      return reply.code(201).send({ status: 'ok', data: version })
    },
  )

  app.patch(
    '/:packageId/versions/:versionId',
    {
      ...superAdministrator,
      schema: {
        params: PackageVersionParamsSchema,
        body: PackageVersionPatchSchema,
        response: { 200: Ok(PackageVersionSchema) },
      },
    },
    async function updateVersion(request) {
      const { packageId, versionId } = request.params
      const version = await app.marketplace.updateVersion(packageId, versionId, request.body, request.caller.userId)
      return { status: 'ok' as const, data: version }
    },
  )
}
