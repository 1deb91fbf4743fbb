import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Ok } from '@quire/contracts'
import { fail } from './api-error.js'

export type ReadinessCheck = () => Promise<void>

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
    const failed = names.filter((_, i) => results[i]?.status === 'rejected')
    if (failed.length > 0) {
      request.log.warn({ failed }, 'not ready')
      throw fail('service_unavailable', `Not ready: ${failed.join(', ')}`)
    }
    return { status: 'ok' as const, data: { checks: names } }
  })
}
