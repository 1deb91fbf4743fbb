import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { fail } from './api-error.js'
import { installErrorHandlers, onFrameworkError } from './error-handler.js'
import { installHealth } from './health.js'

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

export interface ServerOptions {
  /** pino level; `silent` in tests. */
  logLevel?: string
  /** Largest JSON body accepted, in bytes (uploads have their own limits). */
  bodyLimit?: number
  /** Milliseconds a request may take before the socket is closed (slow clients cannot hold the server). */
  requestTimeout?: number
  /** Take the client address from `x-forwarded-for` (only behind the gateway, which sets it). */
  trustProxy?: boolean
}

export const REQUEST_ID_HEADER = 'x-request-id'

/** A request id from the gateway is kept only when it looks like one of ours; otherwise a new one. */
const genReqId = (req: IncomingMessage): string => {
  const given = req.headers[REQUEST_ID_HEADER]
  return typeof given === 'string' && /^[\w-]{8,64}$/.test(given) ? given : randomUUID()
}

/**
 * The Fastify instance every Quire process starts from: logger with request ids (secrets redacted), timeouts,
 * body limit, Ajv that coerces query strings and applies defaults, the envelope error handlers and health.
 */
export function createServer(options: ServerOptions = {}): App {
  const app = Fastify({
    logger: {
      level: options.logLevel ?? 'info',
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.body.password'],
    },
    genReqId,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestTimeout: options.requestTimeout ?? 30_000,
    connectionTimeout: options.requestTimeout ?? 30_000,
    keepAliveTimeout: 72_000,
    return503OnClosing: true,
    trustProxy: options.trustProxy ?? false,
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: onFrameworkError,
    ajv: { customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.addHook('onSend', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id)
  })
  // Bodies are JSON (uploads multipart, where a route registers it): a text body is refused with 415,
  // not handed to a route as a string.
  app.removeContentTypeParser('text/plain')
  // Ajv coerces `?limit=1e309` to Infinity and then skips `maximum` for it (it checks finite numbers only).
  app.addHook('preHandler', async function finiteQueryNumbers(request) {
    const query: unknown = request.query
    if (query === null || typeof query !== 'object') return
    for (const [name, value] of Object.entries(query)) {
      if (typeof value === 'number' && !Number.isFinite(value)) throw fail('validation_error', `querystring/${name} must be a finite number`)
    }
  })
  installErrorHandlers(app)
  installHealth(app)
  return app
}

/** Listens, and closes gracefully on SIGINT/SIGTERM: in-flight requests finish, new ones get 503. */
export async function startServer(app: App, port: number, host: string): Promise<void> {
  const close = (signal: string) => {
    app.log.info({ signal }, 'closing')
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'close failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', close)
  process.once('SIGTERM', close)
  await app.listen({ port, host })
}
