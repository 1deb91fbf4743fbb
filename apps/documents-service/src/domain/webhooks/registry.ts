import { randomBytes } from 'node:crypto'
import type { Scope } from '@quire/auth'
import {
  DEFINITION_EVENTS,
  type CreateWebhookBody,
  type Pagination,
  type Webhook,
  type WebhookEvent,
  type WebhookPatch,
} from '@quire/contracts'
import { checkFilter, compileFilter, ConflictError, newObjectId, type Matcher, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS, type WebhookRecord } from '../../collections.js'
import { targetRefusal } from '../../lib/webhook-targets.js'
import type { Sealer } from '../../lib/sealed.js'
import { isoTime, type Clock } from '../deps.js'

/** A webhook that is not paused, as writes match it. */
export interface ActiveWebhook {
  _id: string
  events: ReadonlySet<WebhookEvent>
  definitionId?: string
  matcher?: Matcher
}

/** How long an environment's active webhooks are reused by writes; a change made here is seen at once. */
const ACTIVE_TTL_MS = 2000
const CACHED_ENVIRONMENTS = 10_000

export interface RegistrySettings {
  allowPrivate: boolean
  perEnvironment: number
}

/** A definition named in a body, resolved by the caller (the route) to its `_id`. */
export type DefinitionChoice = { definitionId: string } | { definitionId: null } | undefined

function present(record: WebhookRecord): Webhook {
  return {
    _id: record._id,
    url: record.url,
    events: record.events,
    ...(record.definitionId !== undefined && { ddId: record.definitionId }),
    ...(record.query !== undefined && { query: JSON.parse(record.query) as Record<string, unknown> }),
    paused: record.paused,
    _createdOn: record._createdOn,
    _lastModifiedOn: record._lastModifiedOn,
  }
}

/** The stored text of a query, checked as a list's `query` is (operators allowed, depth and size bounded). */
function queryText(query: Record<string, unknown>): string {
  try {
    checkFilter(query)
  } catch (error) {
    throw fail('invalid_query', `query: ${(error as Error).message}`)
  }
  return JSON.stringify(query)
}

const definitionEvents: ReadonlySet<WebhookEvent> = new Set(DEFINITION_EVENTS)

/**
 * 400 for what could never be told as asked: a query filters documents, so it takes no definition event; and a
 * `ddId` names a definition that exists already, so `definition.create` (always a new `_id`) never matches it.
 */
function checkCombination(events: readonly WebhookEvent[], query: boolean, definition: boolean): void {
  const told = events.filter((event) => definitionEvents.has(event))
  if (query && told.length > 0) {
    throw fail(
      'validation_error',
      `query: applies to document events only, not to ${told.join(', ')}`,
      'A webhook with a query takes document events only; register definition events in another webhook',
    )
  }
  if (definition && events.includes('definition.create')) {
    throw fail(
      'validation_error',
      'events: definition.create never matches a ddId (a new definition has a new _id)',
      'A webhook limited to one definition cannot be told of definitions created; remove ddId or that event',
    )
  }
}

/** Two changes of one webhook at once: the later one is refused, to be sent again on what the first left. */
function changedMeanwhile(error: unknown): never {
  if (error instanceof ConflictError) throw fail('precondition_failed', 'The webhook changed meanwhile')
  throw error
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

/**
 * An environment's webhooks: managed by its administrators (the routes check the role), each with a signing
 * secret shown at creation and rotation only and stored sealed. Writes ask `active` which ones a change concerns.
 */
export function createRegistry(deps: {
  store: RecordStore
  clock: Clock
  /** Throws when no secrets key is configured: webhooks cannot be made then. */
  sealer: () => Sealer
  settings: RegistrySettings
}) {
  const { store, clock, sealer, settings } = deps
  const webhooks = DOCUMENTS_COLLECTIONS.webhooks.in(store)
  const cache = new Map<string, { readAt: number; active: ActiveWebhook[] }>()

  function checkUrl(url: string): void {
    const refusal = targetRefusal(url, settings.allowPrivate)
    if (refusal) throw fail('validation_error', refusal, 'This address cannot receive webhooks')
  }

  async function find(scope: Scope, webhookId: string): Promise<WebhookRecord> {
    const record = await webhooks.findOne({ _id: webhookId, environmentId: scope.environmentId })
    if (!record) throw fail('webhook_not_found', `No webhook ${webhookId} in environment ${scope.environmentId}`)
    return record
  }

  /** The non-paused webhooks of `environmentId`, read again past their TTL. */
  async function active(environmentId: string): Promise<ActiveWebhook[]> {
    const at = clock()
    const known = cache.get(environmentId)
    if (known && at - known.readAt < ACTIVE_TTL_MS) return known.active
    const records = await webhooks.find({ environmentId, paused: false })
    const list = records.map((record) => ({
      _id: record._id,
      events: new Set(record.events),
      ...(record.definitionId !== undefined && { definitionId: record.definitionId }),
      ...(record.query !== undefined && {
        matcher: compileFilter(JSON.parse(record.query) as Record<string, unknown>),
      }),
    }))
    if (cache.size >= CACHED_ENVIRONMENTS) cache.clear()
    cache.set(environmentId, { readAt: at, active: list })
    return list
  }

  return {
    active,
    find,

    async create(scope: Scope, body: CreateWebhookBody, definition: DefinitionChoice) {
      checkUrl(body.url)
      checkCombination(body.events, body.query !== undefined, Boolean(definition?.definitionId))
      const query = body.query === undefined ? undefined : queryText(body.query)
      // Counted before the insert: concurrent creates may pass the cap by their number, never by more.
      const count = await webhooks.count({ environmentId: scope.environmentId })
      if (count >= settings.perEnvironment) {
        throw fail(
          'webhook_limit_reached',
          `Environment ${scope.environmentId} has ${count} webhooks, the most it may have`,
        )
      }
      const secret = newSecret()
      const at = isoTime(clock)
      const record: WebhookRecord = {
        _id: newObjectId(),
        _hash: newObjectId(),
        environmentId: scope.environmentId,
        url: body.url,
        events: body.events,
        ...(definition?.definitionId && { definitionId: definition.definitionId }),
        ...(query !== undefined && { query }),
        paused: body.paused ?? false,
        secret: sealer().seal(secret),
        _createdOn: at,
        _lastModifiedOn: at,
      }
      await webhooks.insertOne(record)
      cache.delete(scope.environmentId)
      return { ...present(record), secret }
    },

    async list(scope: Scope, { limit, after }: { limit: number; after?: string }) {
      const items = await webhooks.find(
        { environmentId: scope.environmentId },
        { sort: { _id: 1 }, limit: limit + 1, ...(after !== undefined && { after: { _id: after } }) },
      )
      const hasNext = items.length > limit
      if (hasNext) items.length = limit
      const pagination: Pagination = { hasPrevious: after !== undefined, hasNext, type: 'cursor' }
      const last = items.at(-1)
      if (hasNext && last) pagination.next = new URLSearchParams({ limit: String(limit), after: last._id }).toString()
      return { data: items.map(present), pagination }
    },

    async get(scope: Scope, webhookId: string): Promise<Webhook> {
      return present(await find(scope, webhookId))
    },

    async patch(scope: Scope, webhookId: string, patch: WebhookPatch, definition: DefinitionChoice) {
      const current = await find(scope, webhookId)
      if (patch.url !== undefined) checkUrl(patch.url)
      checkCombination(
        patch.events ?? current.events,
        patch.query === undefined ? current.query !== undefined : patch.query !== null,
        definition === undefined ? current.definitionId !== undefined : definition.definitionId !== null,
      )
      const $set: Partial<WebhookRecord> = { _hash: newObjectId(), _lastModifiedOn: isoTime(clock) }
      const $unset: Record<string, ''> = {}
      if (patch.url !== undefined) $set.url = patch.url
      if (patch.events !== undefined) $set.events = patch.events
      if (patch.paused !== undefined) $set.paused = patch.paused
      if (definition?.definitionId) $set.definitionId = definition.definitionId
      else if (definition) $unset.definitionId = ''
      if (patch.query === null) $unset.query = ''
      else if (patch.query !== undefined) $set.query = queryText(patch.query)
      const update = Object.keys($unset).length > 0 ? { $set, $unset } : { $set }
      const updated = await webhooks
        .updateOne({ _id: current._id }, update, { expectedHash: current._hash })
        .catch(changedMeanwhile)
      cache.delete(scope.environmentId)
      if (!updated) throw fail('webhook_not_found', `No webhook ${webhookId} in environment ${scope.environmentId}`)
      return present(updated)
    },

    async rotate(scope: Scope, webhookId: string) {
      const current = await find(scope, webhookId)
      const secret = newSecret()
      const $set = { secret: sealer().seal(secret), _hash: newObjectId(), _lastModifiedOn: isoTime(clock) }
      const updated = await webhooks
        .updateOne({ _id: current._id }, { $set }, { expectedHash: current._hash })
        .catch(changedMeanwhile)
      if (!updated) throw fail('webhook_not_found', `No webhook ${webhookId} in environment ${scope.environmentId}`)
      return { _id: current._id, secret }
    },

    /** Its waiting deliveries are dropped as they come due (the webhook is gone); the finished ones age out. */
    async remove(scope: Scope, webhookId: string) {
      const current = await find(scope, webhookId)
      await webhooks.deleteOne({ _id: current._id })
      cache.delete(scope.environmentId)
      return { _id: current._id, deleted: true as const }
    },

    /** The stored record and its secret opened, for a delivery; null when the webhook is gone. */
    async forDelivery(environmentId: string, webhookId: string) {
      const record = await webhooks.findOne({ _id: webhookId, environmentId })
      return record && { record, secret: sealer().open(record.secret) }
    },
  }
}

export type Registry = ReturnType<typeof createRegistry>
