import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { onRequestAsyncHookHandler } from 'fastify'
import {
  InstallationBodySchema,
  Ok,
  PackageInstallationSchema,
  PackageInstallationsSchema,
  PackageParamsSchema,
  RemovedInstallationSchema,
} from '@quire/contracts'
import { ApiError, fail } from '@quire/service-kit'

/** `/api/v2/packages/installations`: the packages installed in the caller's environment (administrators). */
export const installationsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const administrator = { onRequest: [app.auth.requireEnvironment, app.auth.requireAdministrator] }

  // The spec answers every refusal of the listing with 401, where other calls tell 401 and 403 apart.
  const administratorElseUnauthorized: onRequestAsyncHookHandler = async function (request, reply) {
    try {
      await app.auth.requireEnvironment.call(this, request, reply)
      await app.auth.requireAdministrator.call(this, request, reply)
    } catch (err) {
      if (err instanceof ApiError && err.code === 'forbidden') {
        throw fail('unauthorized', err.message, err.userDescription)
      }
      throw err
    }
  }

  app.get(
    '/',
    { onRequest: administratorElseUnauthorized, schema: { response: { 200: Ok(PackageInstallationsSchema) } } },
    async function listInstallations(request) {
      return { status: 'ok' as const, data: await app.installations.list(request.scope.environmentId) }
    },
  )

  app.post(
    '/',
    {
      ...administrator,
      schema: {
        body: InstallationBodySchema,
        response: { 200: Ok(PackageInstallationSchema), 201: Ok(PackageInstallationSchema) },
      },
    },
    async function installPackage(request, reply) {
      const { environmentId, userId } = request.scope
      const { installation, created } = await app.installations.install(
        environmentId,
        request.body.packageVersionId,
        userId,
      )
      return reply.code(created ? 201 : 200).send({ status: 'ok', data: installation })
    },
  )

  app.delete(
    '/:packageId',
    { ...administrator, schema: { params: PackageParamsSchema, response: { 200: Ok(RemovedInstallationSchema) } } },
    async function removeInstallation(request) {
      await app.installations.remove(request.scope.environmentId, request.params.packageId)
      return { status: 'ok' as const, data: { packageId: request.params.packageId, deleted: true as const } }
    },
  )
}
