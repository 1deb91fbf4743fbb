import fp from 'fastify-plugin'
import type { RecordStore } from '@quire/records'
import { DEFAULT_WORK_QUEUE_PER_ENVIRONMENT, type SharedCounts } from '@quire/service-kit'
import type { DocumentsConfig } from '../config.js'
import { createChangeFeed, type ChangeFeed } from '../domain/change-feed.js'
import { createChangeLog, type ChangeLog } from '../domain/change-log.js'

declare module 'fastify' {
  interface FastifyInstance {
    changeLog: ChangeLog
    changeFeed: ChangeFeed
  }
}

const SWEEP_INTERVAL_MS = 60 * 1000
const HOUR_MS = 60 * 60 * 1000

/**
 * Decorates `fastify.changeLog` (written by document and definition writes) and `fastify.changeFeed` (its
 * subscriptions), and runs their clocks: the poll that finds other processes' writes, heartbeats, the sweep.
 */
export const changeFeedPlugin = fp<{ store: RecordStore; config: DocumentsConfig; counts: SharedCounts }>(
  async (fastify, { store, config, counts }) => {
    const clock = Date.now
    const changeLog = createChangeLog({
      store,
      clock,
      limits: {
        retentionMs: config.QUIRE_CHANGE_LOG_RETENTION_HOURS * HOUR_MS,
        maxEntries: config.QUIRE_CHANGE_LOG_MAX_ENTRIES,
      },
    })
    const changeFeed = createChangeFeed({
      log: changeLog,
      clock,
      logger: fastify.log,
      counts,
      limits: {
        perUser: config.QUIRE_CHANGE_FEED_PER_USER,
        perEnvironment: config.QUIRE_CHANGE_FEED_PER_ENVIRONMENT,
        buffer: config.QUIRE_CHANGE_FEED_BUFFER,
        recheckMs: config.QUIRE_CHANGE_FEED_RECHECK_MS,
        workQueueLimit: config.QUIRE_WORK_QUEUE_PER_ENVIRONMENT ?? DEFAULT_WORK_QUEUE_PER_ENVIRONMENT,
      },
    })
    fastify.decorate('changeLog', changeLog)
    fastify.decorate('changeFeed', changeFeed)

    let sweeping: Promise<unknown> = Promise.resolve()
    const sweep = () => {
      sweeping = changeLog.sweep().catch((error: unknown) => {
        fastify.log.error({ err: error }, 'the change log could not be swept')
      })
    }
    const timers = [
      setInterval(() => changeFeed.poll(), config.QUIRE_CHANGE_FEED_POLL_MS).unref(),
      setInterval(() => changeFeed.heartbeat(), config.QUIRE_CHANGE_FEED_HEARTBEAT_SECONDS * 1000).unref(),
      setInterval(sweep, SWEEP_INTERVAL_MS).unref(),
    ]
    setImmediate(sweep)
    // Before the server waits for its connections: open streams would hold it open.
    fastify.addHook('preClose', async () => {
      for (const timer of timers) clearInterval(timer)
      changeLog.stop()
      changeFeed.close()
    })
    fastify.addHook('onClose', () => sweeping)
  },
  { name: '@quire/documents-change-feed', fastify: '5.x' },
)
