import fp from 'fastify-plugin'
import cors from '@fastify/cors'
import helmet from '@fastify/helmet'
import rateLimit from '@fastify/rate-limit'
import underPressure from '@fastify/under-pressure'
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { fail } from '@quire/service-kit'

export interface EdgeOptions {
  /** Allowed CORS origins; empty = CORS off (same-origin only). `*` allows any. */
  corsOrigins: string[]
  /** Requests per minute per token (or per address without one); 0 = no limit. */
  rateLimitPerMinute: number
  /** Event loop delay (ms) past which new requests get 503 instead of queueing up. */
  maxEventLoopDelay: number
}

/** A caller is its bearer token (hashed: the key lives in memory) or, without one, its address. */
const callerKey = (request: FastifyRequest): string => {
  const authorization = request.headers.authorization
  return authorization ? createHash('sha256').update(authorization).digest('base64url') : request.ip
}

/** What faces the internet: security headers, CORS, per-caller rate limits, shedding load when overloaded. */
async function edge(app: FastifyInstance, options: EdgeOptions) {
  // The API serves JSON only; the docs UI needs its inline assets, so no CSP there.
  await app.register(helmet, { contentSecurityPolicy: false, crossOriginResourcePolicy: { policy: 'same-site' } })
  if (options.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? true : options.corsOrigins,
      allowedHeaders: ['authorization', 'content-type', 'environment-id', 'if-match', 'idempotency-key', 'range', 'x-request-id'],
      exposedHeaders: ['etag', 'content-range', 'content-disposition', 'retry-after', 'x-request-id'],
    })
  }
  if (options.rateLimitPerMinute > 0) {
    // Not per route (those hooks would run after the services' auth hooks): one edge hook before everything.
    await app.register(rateLimit, { global: false })
    app.addHook('onRequest', app.rateLimit({
      max: options.rateLimitPerMinute,
      timeWindow: 60_000,
      keyGenerator: callerKey,
      errorResponseBuilder: (_request, context) =>
        fail('rate_limited', `Too many requests: at most ${context.max} per minute`, 'Too many requests, please retry later'),
    }))
  }
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay,
    retryAfter: 5,
    pressureHandler: () => {
      throw fail('service_unavailable', 'The server is overloaded')
    },
  })
}

export const edgePlugin = fp(edge, { name: '@quire/edge', fastify: '5.x' })
