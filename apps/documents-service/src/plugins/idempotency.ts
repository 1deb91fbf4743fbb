import fp from 'fastify-plugin'
import type { RecordStore } from '@quire/records'
import { createIdempotencyKeys, type IdempotencyKeys } from '../domain/idempotency-keys.js'

declare module 'fastify' {
  interface FastifyInstance {
    idempotencyKeys: IdempotencyKeys
  }
}

/**
 * Decorates `fastify.idempotencyKeys`: the `Idempotency-Key` records of document creates, and their sweep (once
 * the server is ready, then hourly; stopped as closing starts, waited for before the store closes). `now`: the
 * clock, epoch ms (tests move it).
 */
export const idempotencyPlugin = fp<{ store: RecordStore; now?: () => number }>(
  async (fastify, { store, now = Date.now }) => {
    const { start, stop, close, ...capability } = createIdempotencyKeys({ store, clock: now, log: fastify.log })
    fastify.decorate('idempotencyKeys', capability)
    fastify.addHook('onReady', async () => start())
    fastify.addHook('preClose', async () => stop())
    fastify.addHook('onClose', async () => close())
  },
  { name: '@quire/documents-idempotency', fastify: '5.x' },
)
