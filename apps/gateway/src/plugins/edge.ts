import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import rateLimit from '@fastify/rate-limit'
import underPressure from '@fastify/under-pressure'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { refuseNetworkDelegation } from '@quire/auth'
import { fail, type SharedCounts } from '@quire/service-kit'

export interface EdgeOptions {
  /** Allowed CORS origins; empty = CORS off (same-origin only). `*` allows any. */
  corsOrigins: string[]
  /** Requests per minute per client address, for requests without credentials; 0 = no limit. */
  rateLimitPerMinute: number
  /** Where that budget is counted: every process of the server counts one. */
  counts: SharedCounts
  /** Event loop delay (ms) past which new requests get 503 instead of queueing up. */
  maxEventLoopDelay: number
}

/**
 * Helmet's headers for an API that serves JSON (and a docs UI that needs its inline assets, so no CSP):
 * what `@fastify/helmet` sets with `HELMET_OPTIONS` (a test holds them equal), as constants. Helmet computes
 * and sets them on the raw response on every request, which cost a fifth of the throughput of a small GET.
 */
export const HELMET_OPTIONS = {
  contentSecurityPolicy: false,
  crossOriginResourcePolicy: { policy: 'same-site' },
} as const
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
})

/**
 * Those of them that guard any answer, JSON included: HTTPS only, no sniffing a type, no framing, no reading from
 * another site. The rest govern a page a browser renders (its opener, referrer, DNS prefetch, legacy filters and
 * plugins), so they go on every answer but JSON (the console, the docs, attachments): the OWASP REST cheat sheet's
 * split. Node validates and writes each header of each answer; seven fewer on a JSON answer are a measurable share
 * of a small GET.
 */
const EVERY_ANSWER = new Set([
  'cross-origin-resource-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-frame-options',
])
const EVERY_ANSWER_ENTRIES = Object.entries(SECURITY_HEADERS).filter(([name]) => EVERY_ANSWER.has(name))
const PAGE_ENTRIES = Object.entries(SECURITY_HEADERS).filter(([name]) => !EVERY_ANSWER.has(name))

/**
 * JSON, which no browser renders as a page: `application/json`, with or without parameters, exactly (an
 * attachment's own type is its uploader's choice).
 */
const isJson = (type: unknown): boolean =>
  typeof type === 'string' && (type === 'application/json' || type.startsWith('application/json;'))

/**
 * The edge cannot tell a valid token from a random one (services verify them, and may be remote), so it never keys
 * on the header: a random `Authorization` per request would get a fresh budget. It limits by address the requests
 * that bring no credentials; those that do are limited by the service's auth plugin once verified, by user id
 * (`callerRateLimitPerMinute`), and their failures by address.
 */
const bringsCredentials = (request: FastifyRequest): boolean => request.headers.authorization !== undefined

/** What faces the internet: security headers, CORS, per-address rate limits for anonymous requests, shedding load when overloaded. */
async function edge(app: FastifyInstance, options: EdgeOptions) {
  app.addHook('onRequest', function securityHeaders(_request, reply, done) {
    for (const [name, value] of EVERY_ANSWER_ENTRIES) reply.header(name, value)
    done()
  })
  app.addHook('onSend', function pageSecurityHeaders(_request, reply, payload, done) {
    if (!isJson(reply.getHeader('content-type'))) for (const [name, value] of PAGE_ENTRIES) reply.header(name, value)
    done(null, payload)
  })
  // A delegation read from a socket is a forgery, and would pass for credentials below (no address budget).
  app.addHook('onRequest', refuseNetworkDelegation)
  if (options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? true : options.corsOrigins,
      allowedHeaders: [
        'authorization',
        'content-type',
        'environment-id',
        'if-match',
        'idempotency-key',
        'range',
        'x-request-id',
      ],
      exposedHeaders: ['etag', 'content-range', 'content-disposition', 'retry-after', 'x-request-id'],
    })
  }
  if (options.rateLimitPerMinute > 0) {
    // Not per route (those hooks would run after the services' auth hooks): one edge hook before everything.
    await app.register(rateLimit, {
      global: false,
      store: sharedStore(options.counts),
      // What is left is known only to the process that counts for all: no x-ratelimit-remaining to guess.
      addHeadersOnExceeding: { 'x-ratelimit-limit': true, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    })
    app.addHook(
      'onRequest',
      app.rateLimit({
        max: options.rateLimitPerMinute,
        timeWindow: 60_000,
        keyGenerator: (request) => request.ip,
        allowList: bringsCredentials,
        errorResponseBuilder: (_request, context) =>
          fail('rate_limited', `Too many requests: at most ${context.max} per minute`),
      }),
    )
  }
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay,
    retryAfter: 5,
    pressureHandler: () => {
      throw fail('service_unavailable', 'The server is overloaded')
    },
  })
}

/**
 * @fastify/rate-limit's store, counting in the server's shared counts: the processes of a server allow one budget
 * per address between them. The library reads `current` against `max`: a use refused is past it.
 */
function sharedStore(counts: SharedCounts) {
  return class SharedStore {
    incr(
      key: string,
      done: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
      max: number,
    ): void {
      counts
        .take(`edge:${key}`, max, timeWindow)
        .then(
          (wait) => done(null, wait > 0 ? { current: max + 1, ttl: wait * 1000 } : { current: 0, ttl: timeWindow }),
          done,
        )
    }

    child(): SharedStore {
      return this
    }
  }
}

export const edgePlugin = fp(edge, { name: '@quire/edge', fastify: '5.x' })
