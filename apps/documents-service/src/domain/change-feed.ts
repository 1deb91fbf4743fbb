import type { Scope } from '@quire/auth'
import { compileFilter, project, runAccounted, type Filter, type Matcher, type Projection } from '@quire/records'
import { ApiError, fail, type SharedCounts } from '@quire/service-kit'
import type { ChangeRecord, DefinitionRecord, DocumentRecord } from '../collections.js'
import { documentPermissions, keepsPermissions, visibilityFilter, withCondition } from '../lib/visibility.js'
import type { ChangeLog } from './change-log.js'
import type { Clock, Log } from './deps.js'

/** Entries read from the log at once. */
const BATCH = 256

export interface ChangeFeedLimits {
  /** Open subscriptions of one user in one environment (`QUIRE_CHANGE_FEED_PER_USER`). */
  perUser: number
  /** Open subscriptions of one environment (`QUIRE_CHANGE_FEED_PER_ENVIRONMENT`). */
  perEnvironment: number
  /** Events that may wait for a slow reader before it is told to resume (`QUIRE_CHANGE_FEED_BUFFER`). */
  buffer: number
  /** How often at most an event re-checks the caller (`QUIRE_CHANGE_FEED_RECHECK_MS`); a heartbeat always does. */
  recheckMs: number
  /** The environment's work queue (`QUIRE_WORK_QUEUE_PER_ENVIRONMENT`): the feed's work is its work. */
  workQueueLimit: number
}

/** Where a subscription's text goes: the SSE response. */
export interface FeedSink {
  /** Writes `text`; false when the reader is behind (the next write waits for `drained`). */
  write(text: string): boolean
  drained(): Promise<void>
  end(): void
}

interface SubscribeRequest {
  scope: Scope
  definition: Pick<DefinitionRecord, '_id' | '_environmentId'>
  /** The client's filter, checked (the list's language); visibility is added here. */
  filter: Filter
  /** The client's `fields`, checked; empty: whole documents. */
  projection: Projection
  /** The `Last-Event-ID` header: resume after that event. */
  lastEventId?: string
  sink: FeedSink
  /** The caller read again (credentials, access, role): its scope now; throws once they are gone. */
  recheck(): Promise<Scope>
}

interface Subscription {
  /** The client went away. */
  close(): void
}

/**
 * Subscriptions to the change log, per definition: a broker of subscribers (as PocketBase's), each with its own
 * bounded queue and its caller's visibility, fed by one tail of the log per environment. The tail runs when this
 * process commits a write (`notify`) and on a short poll (`poll`), which finds other processes' and replicas'.
 */
export interface ChangeFeed {
  /** 400 for a malformed `lastEventId`, 410 `resume_token_expired` past the retained log, 429 past the caps. */
  subscribe(request: SubscribeRequest): Promise<Subscription>
  notify(environmentId: string): void
  poll(): void
  /** A comment line to every subscriber (keeps proxies from closing idle streams), and a re-check of its caller. */
  heartbeat(): void
  /** Open subscriptions, per environment. */
  open(environmentId: string): number
  /** Ends every subscription. */
  close(): void
}

const TOKEN_PREFIX = 'q1.'

/** The resume token of the entry numbered `seq`: opaque to clients, so its form may change. */
const tokenOf = (seq: number): string => Buffer.from(`${TOKEN_PREFIX}${seq}`).toString('base64url')

function seqOf(token: string): number {
  const text = Buffer.from(token, 'base64url').toString()
  const seq = text.startsWith(TOKEN_PREFIX) ? Number(text.slice(TOKEN_PREFIX.length)) : Number.NaN
  if (!Number.isSafeInteger(seq) || seq < 0) {
    throw fail(
      'validation_error',
      'headers/last-event-id is not an event id of this stream',
      'The stream cannot resume',
    )
  }
  return seq
}

const expired = () =>
  fail(
    'resume_token_expired',
    'headers/last-event-id: the changes after this event are no longer kept; read the documents again, then subscribe without it',
    'Some changes are too old to be replayed; reload the data',
  )

/** The final event of a reader too slow for its buffer: it reconnects with the last id it read. */
const RESUME_EVENT = `event: resume\ndata: ${JSON.stringify({ reason: 'buffer_full' })}\n\n`

/**
 * The least time between two reads of an environment's log, in ms. A socket write per subscriber per read is most
 * of a fan-out's cost (measured: `writev` led the profile of bench/feed.mjs): what commits meanwhile goes in the
 * next read's write, and delivery waits this long at most for it.
 */
const READ_INTERVAL_MS = 25

/** Subscribers offered a read of the log, or flushed, between two turns of the event loop: writes never wait long. */
const CHUNK = 256

/** Gives the event loop a turn: the answers of writes and other requests go before the rest of a fan-out. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * What decides the text of a subscriber's events: its definition, filter and fields, and what its visibility and
 * `_permissions` read of its caller (administrators: nothing else; members: their id and groups, since
 * access-group objects may name either). Subscribers with the same view receive the same text, serialized once.
 */
function viewKey(definitionId: string, scope: Scope, filter: Filter, projection: Projection): string {
  const role = scope.administrator ? 'administrator' : [scope.userId, [...scope.groups].sort()]
  return JSON.stringify([definitionId, role, filter, projection])
}

class View {
  readonly matcher: Matcher
  readonly permissions: boolean
  subscribers = 0

  constructor(
    readonly key: string,
    readonly definitionId: string,
    private readonly scope: Scope,
    filter: Filter,
    private readonly projection: Projection,
  ) {
    // The client's filter within what the caller may GET: one test decides both.
    this.matcher = compileFilter(withCondition(filter, visibilityFilter(scope)))
    this.permissions = keepsPermissions({ projection })
  }

  /** The event `entry` is for this view, if any: a change out of its sight is a `delete`. */
  render(entry: ChangeRecord): string | undefined {
    const { document, previous } = entry
    if (!document) return undefined
    let operation = entry.operation
    if (!this.matcher.test(document)) {
      if (operation !== 'update' || !previous || !this.matcher.test(previous)) return undefined
      operation = 'delete'
    }
    const data =
      operation === 'delete'
        ? { _id: document._id, operation }
        : { _id: document._id, operation, document: this.shown(document) }
    return `id: ${tokenOf(entry.seq)}\nevent: ${operation}\ndata: ${JSON.stringify(data)}\n\n`
  }

  /** `record` as a GET (or a list with the same `fields`) answers it to this view's callers. */
  private shown(record: DocumentRecord): Record<string, unknown> {
    const [projected] = project([record], this.projection)
    return this.permissions
      ? { ...projected, _permissions: documentPermissions(this.scope, record.accessGroups) }
      : { ...projected }
  }
}

/**
 * Entries of one read of the log waiting for a subscriber, rendered for `view` (`text`, holding `events` events).
 * Shared by the subscribers of the view at the same position: never changed once made.
 */
interface Pending {
  readonly entries: readonly ChangeRecord[]
  readonly view: View
  readonly text: string
  readonly events: number
  /** The definition was deleted after these entries: the stream ends once they are sent. */
  readonly last: boolean
}

/** `entries` for `view` from the start, up to the deletion of its definition (which ends its streams). */
function renderRun(view: View, entries: readonly ChangeRecord[], render: (entry: ChangeRecord) => string | undefined) {
  let text = ''
  let events = 0
  let count = 0
  let last = false
  for (const entry of entries) {
    count++
    if (entry.definitionId !== view.definitionId) continue
    if (entry.target === 'definition') {
      last = entry.operation === 'delete'
      if (last) break
      continue
    }
    const rendered = render(entry)
    if (rendered === undefined) continue
    text += rendered
    events++
  }
  return { entries: entries.slice(0, count), view, text, events, last }
}

class Subscriber {
  position: number
  readonly queue: Pending[] = []
  /** Events in `queue`. */
  queued = 0
  scope: Scope
  view: View
  checkedAt: number
  needsCheck = false
  flushing = false
  /** Waiting for the reader to drain what was written: only then do events pile up towards the buffer. */
  behind = false
  closed = false

  constructor(
    readonly request: SubscribeRequest,
    view: View,
    after: number,
    now: number,
    /** Gives back its places among the user's and the environment's subscriptions. */
    readonly release: () => void,
  ) {
    this.position = after
    this.scope = request.scope
    this.view = view
    this.checkedAt = now
  }
}

/** An environment's tail: its subscribers, read from the lowest position among them, and their views. */
interface Tail {
  readonly subscribers: Set<Subscriber>
  readonly views: Map<string, View>
  running: boolean
  again: boolean
  /** When the log was last read for it (`clock`). */
  readAt: number
}

export function createChangeFeed(deps: {
  log: Pick<ChangeLog, 'read' | 'latest' | 'oldest'>
  limits: ChangeFeedLimits
  /** Where open subscriptions are counted: every process of the server counts one cap. */
  counts: SharedCounts
  clock: Clock
  logger: Log
}): ChangeFeed {
  const { log, limits, counts, clock, logger } = deps
  const tails = new Map<string, Tail>()
  /** Environments whose log grew, read on the next turn of the event loop (after the write answered). */
  const notified = new Set<string>()

  const accountOf = (environmentId: string) => ({ id: environmentId, queueLimit: limits.workQueueLimit })

  /** The view of `scope` in `tail`, shared with the subscribers that have the same. */
  function joinView(tail: Tail, request: SubscribeRequest, scope: Scope): View {
    const { definition, filter, projection } = request
    const key = viewKey(definition._id, scope, filter, projection)
    let view = tail.views.get(key)
    if (!view) {
      view = new View(key, definition._id, scope, filter, projection)
      tail.views.set(key, view)
    }
    view.subscribers++
    return view
  }

  function leaveView(tail: Tail | undefined, view: View): void {
    if (--view.subscribers === 0) tail?.views.delete(view.key)
  }

  function finish(subscriber: Subscriber, last?: string): void {
    if (subscriber.closed) return
    subscriber.closed = true
    subscriber.queue.length = 0
    subscriber.queued = 0
    const environmentId = subscriber.request.definition._environmentId
    const tail = tails.get(environmentId)
    tail?.subscribers.delete(subscriber)
    leaveView(tail, subscriber.view)
    if (tail?.subscribers.size === 0) tails.delete(environmentId)
    subscriber.release()
    if (last !== undefined) subscriber.request.sink.write(last)
    subscriber.request.sink.end()
  }

  /** Reads the caller again: false (and the stream ended) once its token, user or access is gone. */
  async function check(subscriber: Subscriber): Promise<boolean> {
    subscriber.needsCheck = false
    subscriber.checkedAt = clock()
    let scope: Scope
    try {
      scope = await subscriber.request.recheck()
    } catch (error) {
      // A budget that refuses for now is not a revocation: the next check decides.
      if (error instanceof ApiError && error.code === 'rate_limited') return true
      finish(subscriber)
      return false
    }
    if (subscriber.closed) return false
    subscriber.scope = scope
    const { request } = subscriber
    const tail = tails.get(request.definition._environmentId)
    if (tail && viewKey(request.definition._id, scope, request.filter, request.projection) !== subscriber.view.key) {
      leaveView(tail, subscriber.view)
      subscriber.view = joinView(tail, request, scope)
    }
    return true
  }

  /**
   * Sends what waits in one write (one socket write per subscriber per read of the log, not one per event), the
   * caller re-checked first when due; then waits for a reader that is behind.
   */
  async function flush(subscriber: Subscriber): Promise<void> {
    if (subscriber.flushing || subscriber.closed) return
    subscriber.flushing = true
    const { sink, definition } = subscriber.request
    try {
      while (!subscriber.closed && (subscriber.needsCheck || subscriber.queue.length > 0)) {
        if (subscriber.needsCheck || clock() - subscriber.checkedAt >= limits.recheckMs) {
          if (!(await check(subscriber))) return
        }
        // A check comes before the events it was due for, which follow it (a heartbeat's has none).
        const { view } = subscriber
        let text = ''
        let last = false
        for (const pending of subscriber.queue.splice(0)) {
          // Rendered for a view the check replaced (the caller's access changed): rendered again for the new one.
          const run =
            pending.view === view
              ? pending
              : renderRun(view, pending.entries, (entry) =>
                  runAccounted(accountOf(definition._environmentId), () => view.render(entry)),
                )
          text += run.text
          last ||= run.last
        }
        subscriber.queued = 0
        if (last) return finish(subscriber, text || undefined)
        if (text.length > 0 && !sink.write(text)) {
          subscriber.behind = true
          await sink.drained()
          subscriber.behind = false
        }
      }
    } catch (error) {
      logger.warn({ err: error }, 'a change feed subscriber failed')
      finish(subscriber)
    } finally {
      subscriber.flushing = false
    }
  }

  /**
   * The entries of one read of the log, from the `start`th, for `view`: rendered once per view and start (most
   * subscribers of a view are at the same position), each entry once per view.
   */
  function renderer(entries: readonly ChangeRecord[]) {
    const texts = new Map<View, Map<number, string | undefined>>()
    const runs = new Map<View, Map<number, Pending>>()
    return (view: View, start: number): Pending => {
      const runsOfView = runs.get(view) ?? new Map<number, Pending>()
      runs.set(view, runsOfView)
      const known = runsOfView.get(start)
      if (known) return known
      const textsOfView = texts.get(view) ?? new Map<number, string | undefined>()
      texts.set(view, textsOfView)
      const run = renderRun(view, entries.slice(start), (entry) => {
        const index = entry.seq - (entries[0]?.seq ?? 0)
        if (textsOfView.has(index)) return textsOfView.get(index)
        // Matching and serializing for a view is its environment's work, shared as any other.
        const text = runAccounted(accountOf(entry.environmentId), () => view.render(entry))
        textsOfView.set(index, text)
        return text
      })
      runsOfView.set(start, run)
      return run
    }
  }

  /** Queues what `subscriber` has not read of `entries` (its position is within them or just before). */
  function offer(subscriber: Subscriber, entries: readonly ChangeRecord[], render: ReturnType<typeof renderer>) {
    const first = entries[0]
    const latest = entries.at(-1)
    if (!first || !latest || subscriber.position >= latest.seq) return
    const run = render(subscriber.view, subscriber.position - first.seq + 1)
    subscriber.position = latest.seq
    if (run.events === 0 && !run.last) return
    subscriber.queue.push(run)
    subscriber.queued += run.events
    // A reader keeping up has at most a read of the log waiting; one that is behind has `buffer` at most.
    if (subscriber.behind && subscriber.queued > limits.buffer) finish(subscriber, RESUME_EVENT)
  }

  /**
   * Reads the log past the lowest position of `environmentId`'s subscribers, offers each entry on, then flushes
   * each subscriber once; the event loop gets a turn every `CHUNK` subscribers, so a fan-out never holds up writes.
   */
  async function pump(environmentId: string): Promise<void> {
    const tail = tails.get(environmentId)
    if (!tail) return
    if (tail.running) {
      tail.again = true
      return
    }
    tail.running = true
    try {
      do {
        const wait = tail.readAt + READ_INTERVAL_MS - clock()
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        tail.readAt = clock()
        tail.again = false
        for (;;) {
          const open = [...tail.subscribers].filter((subscriber) => !subscriber.closed)
          if (open.length === 0) return
          const from = Math.min(...open.map((subscriber) => subscriber.position))
          const entries = await log.read(environmentId, from, BATCH)
          const first = entries[0]
          if (!first) break
          // Entries are numbered without gaps: a gap is entries swept before these subscribers read them. They
          // end, and their resume answers 410.
          for (const subscriber of open) if (subscriber.position < first.seq - 1) finish(subscriber)
          const render = renderer(entries)
          let work = 0
          for (const subscriber of open) {
            if (!subscriber.closed) offer(subscriber, entries, render)
            if (++work % CHUNK === 0) await yieldToLoop()
          }
          for (const subscriber of open) {
            if (subscriber.queue.length > 0) void flush(subscriber)
            if (++work % CHUNK === 0) await yieldToLoop()
          }
          if (entries.length < BATCH) break
        }
      } while (tail.again)
    } catch (error) {
      // The next notification or poll reads again from the same positions.
      logger.error({ err: error }, 'the change log could not be read')
    } finally {
      tail.running = false
    }
  }

  const tooMany = (which: string) =>
    fail(
      'rate_limited',
      `Too many open change subscriptions (${which}); close one first`,
      'Too many live views are open; close one and try again',
    )

  /** A place among the user's subscriptions in the environment and one among the environment's, or 429. */
  async function holdPlaces(environmentId: string, userId: string): Promise<() => void> {
    const user = await counts.hold(`feed:user:${environmentId}\0${userId}`, limits.perUser)
    if (!user) throw tooMany(`${limits.perUser} per user`)
    const environment = await counts
      .hold(`feed:environment:${environmentId}`, limits.perEnvironment)
      .catch((error: unknown) => {
        user()
        throw error
      })
    if (!environment) {
      user()
      throw tooMany(`${limits.perEnvironment} per environment`)
    }
    return () => {
      user()
      environment()
    }
  }

  return {
    async subscribe(request) {
      const { definition, scope, lastEventId } = request
      const environmentId = definition._environmentId
      const latest = await log.latest(environmentId)
      let after = latest
      if (lastEventId !== undefined) {
        after = seqOf(lastEventId)
        if (after > latest) {
          throw fail(
            'validation_error',
            'headers/last-event-id is not an event id of this stream',
            'The stream cannot resume',
          )
        }
        const oldest = await log.oldest(environmentId)
        if (after < latest && (oldest === undefined || oldest > after + 1)) throw expired()
      }
      const release = await holdPlaces(environmentId, scope.userId)
      // From the places on, no await: the subscriber is in its tail before anything can end it.
      const tail = tails.get(environmentId) ?? {
        subscribers: new Set<Subscriber>(),
        views: new Map<string, View>(),
        running: false,
        again: false,
        readAt: 0,
      }
      const subscriber = new Subscriber(request, joinView(tail, request, scope), after, clock(), release)
      tails.set(environmentId, tail)
      tail.subscribers.add(subscriber)
      // A resumed subscriber catches up at once.
      if (after < latest) void pump(environmentId)
      return { close: () => finish(subscriber) }
    },

    notify(environmentId) {
      // The write that notifies answers first: its commit is done, the fan-out is no part of it.
      if (notified.size === 0) {
        setImmediate(() => {
          for (const notifiedId of notified) void pump(notifiedId)
          notified.clear()
        })
      }
      notified.add(environmentId)
    },

    poll() {
      for (const environmentId of tails.keys()) void pump(environmentId)
    },

    heartbeat() {
      for (const tail of tails.values()) {
        for (const subscriber of tail.subscribers) {
          // A reader that is behind has data coming: no comment piles up in its buffer.
          if (subscriber.queue.length === 0) subscriber.request.sink.write(': heartbeat\n\n')
          subscriber.needsCheck = true
          void flush(subscriber)
        }
      }
    },

    open(environmentId) {
      return tails.get(environmentId)?.subscribers.size ?? 0
    },

    close() {
      for (const tail of [...tails.values()]) for (const subscriber of [...tail.subscribers]) finish(subscriber)
    },
  }
}
