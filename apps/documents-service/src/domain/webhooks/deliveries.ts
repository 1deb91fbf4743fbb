import type { Delivery, DeliveriesQuerystring, Pagination, WebhookEvent } from '@quire/contracts'
import { ConflictError, newObjectId, type Filter, type RecordStore, type Transaction } from '@quire/records'
import { fail, sweepInChunks } from '@quire/service-kit'
import {
  DOCUMENTS_COLLECTIONS,
  type DefinitionRecord,
  type DocumentRecord,
  type WebhookDeliveryRecord,
} from '../../collections.js'
import type { Clock, Log } from '../deps.js'
import type { ActiveWebhook, Registry } from './registry.js'
import type { Delivered, SendOutcome } from './sender.js'

/** First retry delay, doubled at each failure up to `MAX_BACKOFF_MS`. */
const FIRST_BACKOFF_MS = 10_000
const MAX_BACKOFF_MS = 60 * 60 * 1000
/** Due deliveries are looked for this often, and at once after a write that queued some. */
const POLL_MS = 1000
/** A paused webhook's due deliveries are looked at again this much later (nothing is sent meanwhile). */
const PAUSED_RECHECK_MS = 60_000
/** An environment's waiting count is read again this often; its writes in between count themselves. */
const WAITING_COUNT_TTL_MS = 1000
const SWEEP_INTERVAL_MS = 60 * 60 * 1000

export interface DeliverySettings {
  concurrency: number
  concurrencyPerEnvironment: number
  waitingPerEnvironment: number
  /** A claim is its claimer's this long: an attempt's time limit and a grace. */
  leaseMs: number
  retryMs: number
  retentionMs: number
}

/** The delay before the next attempt after `failures` failures in a row: 10 s, 20 s, 40 s, ... at most 1 h. */
const backoffMs = (failures: number): number =>
  Math.min(FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1), MAX_BACKOFF_MS)

function present(record: WebhookDeliveryRecord): Delivery {
  return {
    _id: record._id,
    webhookId: record.webhookId,
    eventId: record.eventId,
    type: record.type,
    ddId: record.definitionId,
    ...(record.documentId !== undefined && { documentId: record.documentId }),
    state: record.state,
    ...(record.dueOn !== undefined && { nextAttemptOn: record.dueOn }),
    attempts: record.attempts,
    _createdOn: record._createdOn,
  }
}

/**
 * Deliveries: written in the transaction of the change they tell (`enqueue`), so a committed change is always
 * told and a rolled-back one never; claimed by lease (a conditional write on `_hash`, as after-write jobs are), so
 * one process of those sharing the store sends each; retried with backoff for the retry window; every attempt kept
 * on the record for administrators.
 */
export function createDeliveries(deps: {
  store: RecordStore
  clock: Clock
  log: Log
  registry: Registry
  send(delivery: Delivered): Promise<SendOutcome>
  settings: DeliverySettings
}) {
  const { store, clock, log, registry, send, settings } = deps
  const deliveries = DOCUMENTS_COLLECTIONS.webhookDeliveries.in(store)
  const waiting = new Map<string, { count: number; readAt: number }>()
  const running = new Map<string, number>()
  const inFlight = new Set<Promise<void>>()
  let queued = false
  let polling: Promise<void> | undefined
  let pollAgain = false
  let closed = false
  let poller: NodeJS.Timeout | undefined
  let sweeper: NodeJS.Timeout | undefined
  const isoIn = (ms: number) => new Date(clock() + ms).toISOString()

  async function waitingCount(environmentId: string): Promise<{ count: number }> {
    const at = clock()
    const known = waiting.get(environmentId)
    if (known && at - known.readAt < WAITING_COUNT_TTL_MS) return known
    const entry = { count: await deliveries.count({ environmentId, state: 'waiting' }), readAt: at }
    if (waiting.size > 10_000) waiting.clear()
    waiting.set(environmentId, entry)
    return entry
  }

  /**
   * Queues, in `into` (the change's transaction), one delivery per active webhook of the environment that
   * `concerns` the change, all with one event id and one body.
   */
  async function queue(
    into: Transaction,
    change: { type: WebhookEvent; definitionId: string; environmentId: string; documentId?: string; data: object },
    concerns: (hook: ActiveWebhook) => boolean,
  ): Promise<void> {
    const { type, definitionId, environmentId, documentId, data } = change
    const matching = (await registry.active(environmentId)).filter(
      (hook) =>
        hook.events.has(type) &&
        (hook.definitionId === undefined || hook.definitionId === definitionId) &&
        concerns(hook),
    )
    if (matching.length === 0) return
    const at = new Date(clock()).toISOString()
    const eventId = newObjectId()
    const body = JSON.stringify({ id: eventId, type, environmentId, ddId: definitionId, createdOn: at, data })
    const count = await waitingCount(environmentId)
    const records = DOCUMENTS_COLLECTIONS.webhookDeliveries.in(into)
    for (const hook of matching) {
      const full = count.count >= settings.waitingPerEnvironment
      // The write stands; past the cap its delivery is kept failed, for an administrator to see and redeliver.
      const state = full ? ('failed' as const) : ('waiting' as const)
      await records.insertOne({
        _id: newObjectId(),
        _hash: newObjectId(),
        environmentId,
        webhookId: hook._id,
        eventId,
        type,
        definitionId,
        ...(documentId !== undefined && { documentId }),
        body,
        state,
        ...(full
          ? {
              expiresOn: isoIn(settings.retentionMs),
              attempts: [{ attempt: 1, at, durationMs: 0, error: 'queue_full: too many deliveries are waiting' }],
            }
          : { dueOn: at, attempts: [] }),
        retryUntil: isoIn(settings.retryMs),
        _createdOn: at,
      })
      if (!full) count.count++
    }
    queued = true
  }

  /**
   * A document write: webhooks of its definition (or of any) whose query matches the document written or, for an
   * update, the one it replaced (so a document leaving a query's sight is told too).
   */
  function enqueue(
    into: Transaction,
    definition: DefinitionRecord,
    kind: 'create' | 'update' | 'delete',
    written: DocumentRecord,
    previous: DocumentRecord | null,
  ): Promise<void> {
    const change = {
      type: `document.${kind}` as const,
      definitionId: definition._id,
      environmentId: definition._environmentId,
      documentId: written._id,
      data: written,
    }
    return queue(
      into,
      change,
      (hook) =>
        !hook.matcher ||
        hook.matcher.test(written) ||
        (kind === 'update' && previous !== null && hook.matcher.test(previous)),
    )
  }

  /**
   * A definition created, changed (`definition` as written) or deleted (as it was): webhooks of it or of any.
   * Queries filter documents only; the registry refuses a query beside a definition event.
   */
  function enqueueDefinition(
    into: Transaction,
    kind: 'create' | 'update' | 'delete',
    definition: DefinitionRecord,
  ): Promise<void> {
    const change = {
      type: `definition.${kind}` as const,
      definitionId: definition._id,
      environmentId: definition._environmentId,
      data: definition,
    }
    return queue(into, change, () => true)
  }

  /** What became of a claimed delivery's attempt, written unless another process claimed it since. */
  async function attempt(delivery: WebhookDeliveryRecord): Promise<void> {
    const found = await registry.forDelivery(delivery.environmentId, delivery.webhookId)
    if (!found) {
      await deliveries.deleteOne({ _id: delivery._id }, { expectedHash: delivery._hash })
      return
    }
    if (found.record.paused) {
      const $set = { dueOn: isoIn(PAUSED_RECHECK_MS), _hash: newObjectId() }
      await deliveries.updateOne({ _id: delivery._id }, { $set }, { expectedHash: delivery._hash })
      return
    }
    const at = new Date(clock()).toISOString()
    const outcome = await send({
      url: found.record.url,
      body: delivery.body,
      secret: found.secret,
      webhookId: delivery.webhookId,
      deliveryId: delivery._id,
    })
    const attempts = [...delivery.attempts, { attempt: delivery.attempts.length + 1, at, ...outcome }]
    const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300 && !outcome.error
    const failures = ok ? 0 : (delivery.failures ?? 0) + 1
    const retryOn = new Date(clock() + backoffMs(failures)).toISOString()
    const $set: Partial<WebhookDeliveryRecord> = { attempts, failures, _hash: newObjectId() }
    if (!ok && retryOn <= delivery.retryUntil) {
      $set.dueOn = retryOn
    } else {
      $set.state = ok ? 'delivered' : 'failed'
      $set.expiresOn = isoIn(settings.retentionMs)
    }
    const update = $set.dueOn === undefined ? { $set, $unset: { dueOn: '' as const } } : { $set }
    try {
      await deliveries.updateOne({ _id: delivery._id }, update, { expectedHash: delivery._hash })
      if ($set.state) waiting.delete(delivery.environmentId)
    } catch (error) {
      // Its lease ended and another process claimed it: that attempt is the one recorded.
      if (!(error instanceof ConflictError)) throw error
    }
  }

  function start(delivery: WebhookDeliveryRecord): void {
    const { environmentId } = delivery
    running.set(environmentId, (running.get(environmentId) ?? 0) + 1)
    const work = attempt(delivery)
      .catch((error: unknown) => {
        if (!closed) log.error({ err: error, deliveryId: delivery._id }, 'webhook delivery failed to run')
      })
      .finally(() => {
        inFlight.delete(work)
        const left = (running.get(environmentId) ?? 1) - 1
        if (left > 0) running.set(environmentId, left)
        else running.delete(environmentId)
        dispatch()
      })
    inFlight.add(work)
  }

  /** Claims due deliveries (as many as there are free slots, none of an environment past its share) and starts them. */
  async function claimDue(): Promise<void> {
    do {
      pollAgain = false
      const free = settings.concurrency - inFlight.size
      if (closed || free <= 0) return
      const full = [...running].filter(([, n]) => n >= settings.concurrencyPerEnvironment).map(([id]) => id)
      const filter: Filter = { dueOn: { $lte: new Date(clock()).toISOString() } }
      if (full.length > 0) filter.environmentId = { $nin: full }
      const due = await deliveries.find(filter, { sort: { dueOn: 1 }, limit: free })
      for (const delivery of due) {
        if (closed) return
        if ((running.get(delivery.environmentId) ?? 0) >= settings.concurrencyPerEnvironment) {
          pollAgain = true
          continue
        }
        const claim = { dueOn: isoIn(settings.leaseMs), _hash: newObjectId() }
        try {
          const claimed = await deliveries.updateOne(
            { _id: delivery._id },
            { $set: claim },
            { expectedHash: delivery._hash },
          )
          if (claimed) start(claimed)
        } catch (error) {
          // Another process sharing the store claimed it first.
          if (!(error instanceof ConflictError)) throw error
        }
      }
    } while (pollAgain)
  }

  function poll(): Promise<void> {
    if (polling) {
      pollAgain = true
      return polling
    }
    polling = claimDue()
      .catch((error: unknown) => {
        if (!closed) log.error({ err: error }, 'webhook deliveries could not be claimed')
      })
      .finally(() => {
        polling = undefined
      })
    return polling
  }

  function dispatch(): void {
    if (!closed) setImmediate(poll)
  }

  let sweeping: Promise<number> | undefined

  /** Deletes finished deliveries past their retention, in bounded transactions. */
  function sweepExpired(): Promise<number> {
    const expired = { expiresOn: { $lt: new Date(clock()).toISOString() } }
    return sweepInChunks({
      read: (limit) => deliveries.findText(expired, { sort: { expiresOn: 1 }, limit }),
      remove: (ids) =>
        store.transaction(async (tx) => {
          const records = DOCUMENTS_COLLECTIONS.webhookDeliveries.in(tx)
          let deleted = 0
          for (const _id of ids) if (await records.deleteOne({ ...expired, _id })) deleted++
          return deleted
        }),
      raced: (error) => error instanceof ConflictError,
      stopped: () => closed,
    })
  }

  /** One sweep at a time: a timer that fires while one still runs (a large backlog) joins it. */
  function sweep(): Promise<number> {
    sweeping ??= sweepExpired().finally(() => {
      sweeping = undefined
    })
    return sweeping
  }

  function sweepInBackground(): void {
    sweep().catch((error: unknown) => {
      if (!closed) log.error({ err: error }, 'expired webhook deliveries could not be swept')
    })
  }

  async function findDelivery(environmentId: string, webhookId: string, deliveryId: string) {
    const record = await deliveries.findOne({ _id: deliveryId, webhookId, environmentId })
    if (!record) throw fail('delivery_not_found', `No delivery ${deliveryId} of webhook ${webhookId}`)
    return record
  }

  return {
    enqueue,
    enqueueDefinition,

    /** After a write committed: its deliveries are looked for now rather than at the next poll. */
    settle(): void {
      if (!queued) return
      queued = false
      dispatch()
    },

    /** Claims and sends what is due now; resolves once those attempts are recorded (tests move the clock). */
    async deliverDue(): Promise<void> {
      await poll()
      await Promise.all(inFlight)
    },

    /** A page of a webhook's deliveries, newest first. */
    async listDeliveries(environmentId: string, webhookId: string, { state, limit, after }: DeliveriesQuerystring) {
      const filter: Filter = { webhookId, environmentId }
      if (state !== undefined) filter.state = state
      const items = await deliveries.find(filter, {
        sort: { _id: -1 },
        limit: limit + 1,
        ...(after !== undefined && { after: { _id: after } }),
      })
      const hasNext = items.length > limit
      if (hasNext) items.length = limit
      const pagination: Pagination = { hasPrevious: after !== undefined, hasNext, type: 'cursor' }
      const last = items.at(-1)
      if (hasNext && last) {
        const next = new URLSearchParams({ limit: String(limit) })
        if (state !== undefined) next.set('state', state)
        next.set('after', last._id)
        pagination.next = next.toString()
      }
      return { data: items.map(present), pagination }
    },

    /** Sends a delivery again now, with a new retry window; one already waiting is only made due now. */
    async redeliver(environmentId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
      const current = await findDelivery(environmentId, webhookId, deliveryId)
      if (current.state !== 'waiting' && (await waitingCount(environmentId)).count >= settings.waitingPerEnvironment) {
        throw fail(
          'rate_limited',
          `More than ${settings.waitingPerEnvironment} deliveries of this environment are waiting`,
        )
      }
      const $set = {
        state: 'waiting' as const,
        dueOn: new Date(clock()).toISOString(),
        retryUntil: isoIn(settings.retryMs),
        failures: 0,
        _hash: newObjectId(),
      }
      const updated = await deliveries
        .updateOne({ _id: current._id }, { $set, $unset: { expiresOn: '' } }, { expectedHash: current._hash })
        .catch((error: unknown) => {
          // An attempt was recorded meanwhile: the caller reads the list again and decides.
          if (error instanceof ConflictError) throw fail('precondition_failed', 'The delivery changed meanwhile')
          throw error
        })
      if (!updated) throw fail('delivery_not_found', `No delivery ${deliveryId} of webhook ${webhookId}`)
      waiting.delete(environmentId)
      dispatch()
      return present(updated)
    },

    start(): void {
      // It never rejects: it logs its own failure.
      poller = setInterval(poll, POLL_MS).unref()
      sweeper = setInterval(sweepInBackground, SWEEP_INTERVAL_MS).unref()
      // Deliveries left by a previous process (a restart, a crash) are due already: they go now.
      dispatch()
      sweepInBackground()
    },
    stop(): void {
      closed = true
      clearInterval(poller)
      clearInterval(sweeper)
    },
    /** Resolves once the attempts in progress are recorded. */
    async close(): Promise<void> {
      await polling
      await Promise.all(inFlight)
    },
  }
}
