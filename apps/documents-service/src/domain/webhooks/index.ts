import type { LookupFunction } from 'node:net'
import type { RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import type { Sealer } from '../../lib/sealed.js'
import { publicLookup } from '../../lib/webhook-targets.js'
import type { Clock, Log } from '../deps.js'
import { createDeliveries, type DeliverySettings } from './deliveries.js'
import { createRegistry, type RegistrySettings } from './registry.js'
import { createSender, type Delivered, type SendOutcome } from './sender.js'

export interface WebhooksSettings extends RegistrySettings, Omit<DeliverySettings, 'leaseMs'> {
  timeoutMs: number
}

/**
 * Signed webhooks of an environment: the registry (what administrators manage), the deliveries (queued in the
 * writes' transactions, sent by lease) and the sender (HTTP, SSRF-filtered). `send` and `lookup` are the
 * sender's but in tests.
 */
export function createWebhooks(deps: {
  store: RecordStore
  clock: Clock
  log: Log
  /** Absent: no secrets key is configured, and creating a webhook answers 503. */
  sealer?: Sealer
  settings: WebhooksSettings
  lookup?: LookupFunction
  send?: (delivery: Delivered) => Promise<SendOutcome>
}) {
  const { store, clock, log, settings } = deps
  const sealer = () => {
    if (deps.sealer) return deps.sealer
    throw fail('service_unavailable', 'Webhooks need a secrets key: set QUIRE_WEBHOOKS_SECRETS_KEY')
  }
  const sender = createSender({
    timeoutMs: settings.timeoutMs,
    allowPrivate: settings.allowPrivate,
    lookup: deps.lookup ?? publicLookup(),
    now: clock,
  })
  const registry = createRegistry({ store, clock, sealer, settings })
  const deliveries = createDeliveries({
    store,
    clock,
    log,
    registry,
    send: deps.send ?? sender.send,
    // A claim outlives its attempt's time limit, so two processes never send one delivery at once.
    settings: { ...settings, leaseMs: settings.timeoutMs + 30_000 },
  })
  const { close, ...rest } = deliveries
  return {
    ...registry,
    ...rest,
    async close(): Promise<void> {
      await close()
      await sender.close()
    },
  }
}

export type Webhooks = ReturnType<typeof createWebhooks>
