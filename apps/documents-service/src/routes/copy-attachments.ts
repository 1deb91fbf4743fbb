import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { CopyAttachmentsBodySchema, CopyAttachmentsResponseSchema } from '@quire/contracts'

/** `/api/v2/documents/copyAttachments`: server-side copies, read access to each source, write to each target. */
export const copyAttachmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.post(
    '/copyAttachments',
    { schema: { body: CopyAttachmentsBodySchema, response: { 200: CopyAttachmentsResponseSchema } } },
    async function copyAttachments(request) {
      const data = await app.attachments.copy(request.scope, request.body)
      return { status: 'ok' as const, data }
    },
  )
}
