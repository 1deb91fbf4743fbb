import fp from 'fastify-plugin'
import type { KeyPair } from '@quire/auth'
import type { RecordStore } from '@quire/records'
import type { DocumentsConfig } from '../config.js'
import { createWebhooks, type Webhooks } from '../domain/webhooks/index.js'
import { decodeKey, sealer } from '../lib/sealed.js'

declare module 'fastify' {
  interface FastifyInstance {
    webhooks: Omit<Webhooks, 'start' | 'stop' | 'close'>
  }
}

const HOUR_MS = 60 * 60 * 1000

/**
 * Decorates `fastify.webhooks`: secrets sealed under `QUIRE_WEBHOOKS_SECRETS_KEY`, else the data dir's secrets
 * key; deliveries sent once the server is ready, nothing new claimed once closing starts, what is in flight
 * waited for.
 */
export const webhooksPlugin = fp<{ store: RecordStore; keys: KeyPair; config: DocumentsConfig }>(
  async (fastify, { store, keys, config }) => {
    const key = config.QUIRE_WEBHOOKS_SECRETS_KEY ? decodeKey(config.QUIRE_WEBHOOKS_SECRETS_KEY) : keys.secretsKey
    const { start, stop, close, ...webhooks } = createWebhooks({
      store,
      clock: Date.now,
      log: fastify.log,
      ...(key && { sealer: sealer(key) }),
      settings: {
        allowPrivate: config.QUIRE_WEBHOOKS_ALLOW_PRIVATE,
        perEnvironment: config.QUIRE_WEBHOOKS_PER_ENVIRONMENT,
        waitingPerEnvironment: config.QUIRE_WEBHOOK_WAITING_PER_ENVIRONMENT,
        concurrency: config.QUIRE_WEBHOOK_CONCURRENCY,
        concurrencyPerEnvironment: config.QUIRE_WEBHOOK_CONCURRENCY_PER_ENVIRONMENT,
        timeoutMs: config.QUIRE_WEBHOOK_TIMEOUT_MS,
        retryMs: config.QUIRE_WEBHOOK_RETRY_HOURS * HOUR_MS,
        retentionMs: config.QUIRE_WEBHOOK_DELIVERY_RETENTION_DAYS * 24 * HOUR_MS,
      },
    })
    fastify.decorate('webhooks', webhooks)
    fastify.addHook('onReady', async () => start())
    fastify.addHook('preClose', async () => stop())
    fastify.addHook('onClose', async () => close())
  },
  { name: '@quire/documents-webhooks', fastify: '5.x' },
)
