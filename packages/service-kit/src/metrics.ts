import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { fail } from './api-error.js'
import { readinessChecksOf } from './health.js'

/** Process-wide metrics (event-loop lag, memory, GC, handles): one set per process, however many servers. */
let processRegistry: Registry | undefined
const processMetrics = (): Registry => {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 })
  }
  return processRegistry
}

const digest = (value: string): Buffer => createHash('sha256').update(value).digest()

/**
 * `GET /metrics` in Prometheus text format behind `Authorization: Bearer <token>` (compared in constant time,
 * 401 otherwise): the process's metrics; per route (its pattern, so the label set stays bounded) and status, a
 * latency histogram whose `_count` is the request rate; and, measured at scrape time so requests pay nothing,
 * how long each readiness check (the records store, the file store) takes to answer and whether it does.
 */
export function installMetrics(app: FastifyInstance, token: string): void {
  const registry = new Registry()
  const expected = digest(`Bearer ${token}`)
  const requests = new Histogram({
    name: 'quire_http_request_duration_seconds',
    help: 'Time to answer a request, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  })
  const dependencySeconds = new Gauge({
    name: 'quire_dependency_ping_seconds',
    help: 'Time a dependency (records store, file store) took to answer its readiness check at this scrape.',
    labelNames: ['dependency'],
    registers: [registry],
  })
  const dependencyUp = new Gauge({
    name: 'quire_dependency_up',
    help: '1 when the dependency answered its readiness check at this scrape, 0 otherwise.',
    labelNames: ['dependency'],
    registers: [registry],
  })

  app.addHook('onResponse', (request, reply, done) => {
    requests.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    )
    done()
  })

  const probe = async () => {
    await Promise.all(
      [...readinessChecksOf(app)].map(async ([name, check]) => {
        const started = process.hrtime.bigint()
        const up = await check().then(
          () => 1,
          () => 0,
        )
        dependencySeconds.set({ dependency: name }, Number(process.hrtime.bigint() - started) / 1e9)
        dependencyUp.set({ dependency: name }, up)
      }),
    )
  }

  app.get(
    '/metrics',
    { schema: { hide: true }, logLevel: 'warn' },
    async (request: FastifyRequest, reply: FastifyReply) => {
      // The scheme is case-insensitive (RFC 9110 §11.1): `bearer <token>` is the same credential.
      const given = digest((request.headers.authorization ?? '').replace(/^bearer /i, 'Bearer '))
      if (!timingSafeEqual(given, expected)) {
        throw fail('unauthorized', 'GET /metrics needs Authorization: Bearer <QUIRE_METRICS_TOKEN>')
      }
      await probe()
      const text = `${await processMetrics().metrics()}\n${await registry.metrics()}`
      return reply.type(registry.contentType).send(text)
    },
  )
}
