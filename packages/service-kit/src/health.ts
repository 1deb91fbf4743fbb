import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Ok } from '@quire/contracts'
import { fail } from './api-error.js'

export type ReadinessCheck = () => Promise<void>

/** A check's failure whose message `/ready` may show: it says what to fix and holds nothing secret. */
export class NotReadyError extends Error {
  override name = 'NotReadyError'
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Registers a dependency `/ready` must reach (a store, a bucket); names show in its answer. */
    addReadinessCheck(name: string, check: ReadinessCheck): void
  }
}

const registered = new WeakMap<FastifyInstance, ReadonlyMap<string, ReadinessCheck>>()

/** The checks `/ready` runs on `app` (the metrics time them at each scrape). */
export const readinessChecksOf = (app: FastifyInstance): ReadonlyMap<string, ReadinessCheck> =>
  registered.get(app) ?? new Map()

const HealthSchema = Ok(Type.Object({ uptime: Type.Number() }))
const ReadySchema = Ok(Type.Object({ checks: Type.Array(Type.String()) }))

/** `/health`: the process answers. `/ready`: every registered dependency answers too (503 otherwise). */
export function installHealth(app: FastifyInstance): void {
  const checks = new Map<string, ReadinessCheck>()
  registered.set(app, checks)
  app.decorate('addReadinessCheck', (name: string, check: ReadinessCheck) => {
    checks.set(name, check)
  })
  app.get('/health', { schema: { hide: true, response: { 200: HealthSchema } } }, async () => ({
    status: 'ok' as const,
    data: { uptime: process.uptime() },
  }))
  app.get('/ready', { schema: { hide: true, response: { 200: ReadySchema } } }, async (request) => {
    const names = [...checks.keys()]
    const results = await Promise.allSettled([...checks.values()].map((check) => check()))
    const failed = names.flatMap((name, i) => {
      const result = results[i]
      if (result?.status !== 'rejected') return []
      // Other checks' errors (a store's, a bucket's) may name hosts or paths: only their names are shown.
      return [result.reason instanceof NotReadyError ? `${name} (${result.reason.message})` : name]
    })
    if (failed.length > 0) {
      request.log.warn({ failed }, 'not ready')
      throw fail('service_unavailable', `Not ready: ${failed.join(', ')}`)
    }
    return { status: 'ok' as const, data: { checks: names } }
  })
}
