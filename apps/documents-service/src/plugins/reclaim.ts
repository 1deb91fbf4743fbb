import fp from 'fastify-plugin'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS } from '../collections.js'
import { reclaim, type Reclaimed } from '../reclaim.js'

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

const HOUR = 60 * 60 * 1000
/** As the other sweeps of this service. */
const INTERVAL_MS = HOUR
const STEP = 100
const MAX_FILES_PER_PASS = 1000

/**
 * Decorates `fastify.reclaim` and runs it once the server is ready, then hourly; stopped as closing starts,
 * waited for before the stores close.
 */
export const reclaimPlugin = fp<ReclaimPluginOptions>(
  async (fastify, { store, files, uploadDir, graceMs = HOUR, now = Date.now }) => {
    const references = DOCUMENTS_COLLECTIONS.attachmentFiles.in(store)
    let closed = false
    let timer: NodeJS.Timeout | undefined
    let running: Promise<Reclaimed> | undefined

    const pass = (): Promise<Reclaimed> => {
      running ??= reclaim({
        files,
        references,
        uploadDir,
        before: now() - graceMs,
        step: STEP,
        limit: MAX_FILES_PER_PASS,
        stopped: () => closed,
      }).finally(() => {
        running = undefined
      })
      return running
    }
    const inBackground = (): void => {
      pass().then(
        (reclaimed) => {
          if (reclaimed.spools + reclaimed.files > 0) fastify.log.info(reclaimed, 'leftover upload files reclaimed')
        },
        (err: unknown) => {
          if (!closed) fastify.log.error({ err }, 'leftover upload files could not be reclaimed')
        },
      )
    }

    fastify.decorate('reclaim', pass)
    fastify.addHook('onReady', async () => {
      timer = setInterval(inBackground, INTERVAL_MS).unref()
      inBackground()
    })
    fastify.addHook('preClose', async () => {
      closed = true
      clearInterval(timer)
    })
    fastify.addHook('onClose', async () => {
      await running?.catch(() => undefined)
    })
  },
  { name: '@quire/documents-reclaim', fastify: '5.x' },
)
