import { randomUUID } from 'node:crypto'
import { setFlagsFromString } from 'node:v8'
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyInstance,
  type RawServerDefault,
} from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { fail } from './api-error.js'
import { answerClientError } from './client-error.js'
import type { CommonConfig } from './config.js'
import { installErrorHandlers, onFrameworkError } from './error-handler.js'
import { installHealth } from './health.js'
import { lingerAfterAnswer } from './lingering-close.js'
import { defaultLogDestination, type LogDestination } from './log-destination.js'
import { installMetrics } from './metrics.js'

export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface ServerOptions {
  /** pino level; `silent` in tests. */
  logLevel?: string
  /** Largest JSON body accepted, in bytes (uploads have their own limits). */
  bodyLimit?: number
  /** Milliseconds a request may take before the socket is closed (slow clients cannot hold the server). */
  requestTimeout?: number
  /** Take the client address from `x-forwarded-for` (only behind the gateway, which sets it). */
  trustProxy?: boolean
  /** Where log lines go; by default stdout: readable lines on a terminal, JSON lines written asynchronously otherwise. */
  logStream?: LogDestination
  /** When set, `GET /metrics` answers requests bearing `Authorization: Bearer <metricsToken>`; absent otherwise. */
  metricsToken?: string
  /** Milliseconds requests in progress get once `close()` starts; their connections are then ended. */
  shutdownTimeout?: number
}

/** The server settings of the common configuration, read alike by every service and the gateway. */
export function serverOptionsOf(config: CommonConfig): ServerOptions {
  return {
    logLevel: config.QUIRE_LOG_LEVEL,
    bodyLimit: config.QUIRE_BODY_LIMIT,
    requestTimeout: config.QUIRE_REQUEST_TIMEOUT_MS,
    shutdownTimeout: config.QUIRE_SHUTDOWN_TIMEOUT_MS,
    trustProxy: config.QUIRE_TRUST_PROXY,
    metricsToken: config.QUIRE_METRICS_TOKEN,
  }
}

export const REQUEST_ID_HEADER = 'x-request-id'

/** A request id from the gateway is kept only when it looks like one of ours; otherwise a new one. */
const genReqId = (req: IncomingMessage): string => {
  const given = req.headers[REQUEST_ID_HEADER]
  return typeof given === 'string' && /^[\w-]{8,64}$/.test(given) ? given : randomUUID()
}

/** The path of a request, without its query string (which may carry values nobody should find in logs). */
const pathOf = (url: string): string => {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/**
 * Fastify's per-request lines, made concise: one `info` line when a request is answered (method, path, status,
 * milliseconds; the request id is on every line), and its arrival only at `debug`. No headers, no query string.
 */
class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: pathOf(request.url) }, 'incoming request')
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: pathOf(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    }
    if (error) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request')
  }
}

function finiteQueryNumbers(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  const query = request.query as Record<string, unknown> | null | undefined
  if (query !== null && typeof query === 'object') {
    for (const name in query) {
      const value = query[name]
      if (typeof value === 'number' && !Number.isFinite(value)) {
        done(fail('validation_error', `querystring/${name} must be a finite number`))
        return
      }
    }
  }
  done()
}

/**
 * The Fastify instance every Quire process starts from: logger with request ids (secrets redacted), timeouts,
 * body limit, Ajv that coerces query strings and applies defaults, the envelope error handlers, health, and
 * metrics when given a token.
 */
export function createServer(options: ServerOptions = {}): App {
  const level = options.logLevel ?? 'info'
  const logStream = options.logStream ?? defaultLogDestination()
  const app = Fastify({
    logger: {
      level,
      stream: logStream,
      redact: ['req.headers.authorization', 'req.headers.cookie', 'req.body.password'],
    },
    logController: new RequestLog(),
    genReqId,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    requestTimeout: options.requestTimeout ?? 30_000,
    connectionTimeout: options.requestTimeout ?? 30_000,
    keepAliveTimeout: 72_000,
    // Refused in an `onRequest` hook instead (`drainOnClose`), in the envelope; Fastify's own 503 body is not.
    return503OnClosing: false,
    trustProxy: options.trustProxy ?? false,
    routerOptions: { maxParamLength: 256 },
    frameworkErrors: onFrameworkError,
    clientErrorHandler: answerClientError,
    ajv: { customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>()
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    // Answered before its body's end (a 413, a refusal before the body was read): should the connection close
    // after it (`Connection: close`, Fastify's after any body-parser error), it lingers, so a client still
    // sending reads the answer instead of a reset. Ordinary requests pay this property check only.
    if (request.raw.complete === false) lingerAfterAnswer(request.raw)
    done(null, payload)
  })
  app.addHook('onClose', (_instance, done) => {
    logStream.flushSync?.()
    done()
  })
  // Bodies are JSON (uploads multipart, where a route registers it): a text body is refused with 415,
  // not handed to a route as a string.
  app.removeContentTypeParser('text/plain')
  // Clients that send `Content-Type: application/json` on every call send it without a body too: an empty JSON
  // body is no body (a route whose body is required still says so), anything else is Fastify's own parse.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) done(null, undefined)
    else parseJson(request, body.toString(), done)
  })
  // A 204 or 304 has no content (RFC 9110 15.3.5, 15.4.5): no body, so neither its type nor its length (a route's
  // `send(null)` would otherwise go out as `null` with a JSON type, and a proxy refuses the length).
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 204 && reply.statusCode !== 304) return payload
    reply.removeHeader('content-type')
    reply.removeHeader('content-length')
    return null
  })
  // Ajv coerces `?limit=1e309` to Infinity and then skips `maximum` for it (it checks finite numbers only).
  // Only routes with a querystring schema get numbers, so only they carry the check.
  app.addHook('onRoute', (route) => {
    if (route.schema?.querystring === undefined) return
    const own =
      route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
    route.preHandler = [finiteQueryNumbers, ...own]
  })
  installErrorHandlers(app)
  drainOnClose(app, options.shutdownTimeout ?? 8000)
  installHealth(app)
  if (options.metricsToken !== undefined) installMetrics(app, options.metricsToken)
  return app
}

/**
 * Closing: from `close()` on, a request that arrives (on a kept-alive connection, or pipelined) is refused with
 * 503 `service_unavailable` and `Connection: close` (Fastify sets it on every request once closing), and each
 * connection is ended as soon as it is idle (Node's `server.close()` ends only those idle at that moment: a
 * kept-alive one would otherwise stay open past its last answer). Requests in progress get `timeout`
 * milliseconds; their connections are then destroyed, so `close()` goes on to the `onClose` hooks (the stores).
 * Written here rather than with `close-with-grace`: its delay exits the process, skipping those hooks, and it ends
 * no connection.
 */
function drainOnClose(app: App, timeout: number): void {
  let closing = false
  let deadline: NodeJS.Timeout | undefined
  app.addHook('onRequest', (_request, _reply, done) => {
    done(closing ? fail('service_unavailable', 'The server is shutting down') : undefined)
  })
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) app.server.closeIdleConnections()
    done()
  })
  app.addHook('preClose', (done) => {
    closing = true
    deadline = setTimeout(() => app.server.closeAllConnections(), timeout)
    done()
  })
  app.addHook('onClose', (_instance, done) => {
    clearTimeout(deadline)
    done()
  })
}

/**
 * While collections are cheap, V8 lets the old space grow to up to 4× the live heap before the next full one:
 * under load a process held three to five times its live heap in garbage. Bounded at 1.5×, its peak
 * stays near the live set at the same throughput (BENCHMARKS.md). V8 reads it at each collection.
 */
const HEAP_GROWING_PERCENT = 50

/**
 * Sets the process's heap policy, listens, and closes on SIGINT/SIGTERM: requests in progress get the server's
 * shutdown timeout to finish, new ones get 503 (see `drainOnClose`).
 */
export async function startServer(app: App, port: number, host: string): Promise<void> {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
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
