import fastifyStatic from '@fastify/static'
import { dist } from '@quire/console'
import type { FastifyInstance } from 'fastify'

/**
 * The console's files are all bundled (no inline script or style, no other origin), so its pages can carry a
 * strict policy. Only these answers get it: the API's own headers are the edge's, and /docs needs inline assets.
 */
const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

/**
 * The browser console at /console: the built files of @quire/console, and index.html for every other path under
 * it (deep links of its history routing). Encapsulated (not fp), so its hook touches only these routes.
 */
export async function consolePlugin(app: FastifyInstance) {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', CONSOLE_CSP)
  })
  // Registered before the OpenAPI plugin, so these routes stay out of the API's description.
  // One route per built file, read once at start; `/console/` is index.html.
  await app.register(fastifyStatic, { root: dist, prefix: '/console/', wildcard: false, index: 'index.html' })
  app.get('/console', (_request, reply) => reply.sendFile('index.html'))
  app.get('/console/*', async (request, reply) => {
    // A missing asset is a 404, not the page: a stale bundle name must not be answered with HTML.
    if (request.url.startsWith('/console/assets/')) return reply.callNotFound()
    return reply.sendFile('index.html')
  })
}
