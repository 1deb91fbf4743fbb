import fp from 'fastify-plugin'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { createReclaimer } from '../domain/reclaimer.js'
import type { Reclaimed } from '../reclaim.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Runs a reclaim pass (see `../reclaim.ts`), or joins the one in progress. */
    reclaim(): Promise<Reclaimed>
  }
}

interface ReclaimPluginOptions {
  store: RecordStore
  files: FileStore
  uploadDir: string
  /** Files younger than this (ms) are never removed; well past the longest upload. */
  graceMs?: number
  /** The clock, epoch ms. */
  now?: () => number
}

/**
 * Decorates `fastify.reclaim` and runs it once the server is ready, then hourly; stopped as closing starts,
 * waited for before the stores close.
 */
export const reclaimPlugin = fp<ReclaimPluginOptions>(
  async (fastify, { now = Date.now, ...options }) => {
    const { pass, start, stop, close } = createReclaimer({ ...options, clock: now, log: fastify.log })
    fastify.decorate('reclaim', pass)
    fastify.addHook('onReady', async () => start())
    fastify.addHook('preClose', async () => stop())
    fastify.addHook('onClose', async () => close())
  },
  { name: '@quire/documents-reclaim', fastify: '5.x' },
)
