import { sep } from 'node:path'
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

const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * The browser console at /console: the built files of @quire/console, and index.html for every other path under
 * it (deep links of its history routing). Encapsulated (not fp), so its hook touches only these routes.
 */
export async function consolePlugin(app: FastifyInstance) {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', CONSOLE_CSP)
  })
  // Registered before the OpenAPI plugin, so these routes stay out of the API's description.
  // Built files come with their .br and .gz beside them (apps/console/scripts/compress.mjs), sent as the browser
  // accepts, with no per-request compression. Hashed names never change content, so they are cached for good;
  // the page itself is revalidated, so a new build is picked up at the next load.
  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/console/',
    wildcard: false,
    // The page is routed below: @fastify/static answers a directory index 404 when a compressed copy is asked for.
    index: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders(reply, path) {
      reply.header('vary', 'accept-encoding')
      reply.header('cache-control', path.includes(`${sep}assets${sep}`) ? IMMUTABLE : 'no-cache')
    },
  })
  app.get('/console', (_request, reply) => reply.sendFile('index.html'))
  app.get('/console/', (_request, reply) => reply.sendFile('index.html'))
  // Browsers ask for /favicon.ico whatever the page declares: the console's icon serves there too.
  app.get('/favicon.ico', (_request, reply) => reply.type('image/svg+xml').sendFile('favicon.svg'))
  app.get('/console/*', async (request, reply) => {
    // A missing asset is a 404, not the page: a stale bundle name must not be answered with HTML.
    if (request.url.startsWith('/console/assets/')) return reply.callNotFound()
    return reply.sendFile('index.html')
  })
}
