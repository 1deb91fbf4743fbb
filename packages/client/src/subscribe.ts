import { createParser } from 'eventsource-parser'
import type { operations } from './schema.js'

/** A document as GET answers it. */
type Document = operations['getDocument']['responses'][200]['content']['application/json']

/** One change of a subscription: `document` for a create or an update, as the subscriber would GET it. */
export type Change =
  | { id: string; operation: 'create' | 'update'; _id: string; document: Document }
  | { id: string; operation: 'delete'; _id: string }

export interface SubscribeOptions {
  /** The list's filter, evaluated on each changed document. */
  query?: Record<string, unknown>
  /** The list's `fields`. */
  fields?: Record<string, 0 | 1>
  /** Resume after this event (the `id` of the last change handled, kept across runs). */
  lastEventId?: string
  /**
   * Called each time a connection is answered and streaming: from then on no change is missed. A page that read
   * its data before the first one reads again, for what changed in between.
   */
  onOpen?: () => void
}

export interface Subscription {
  /** The id of the last change delivered: where a later subscription resumes. */
  readonly lastEventId: string | undefined
  /**
   * Settles when the subscription ends: resolves after `close`, rejects with the answer's error body when the
   * server refuses it for good (410 `resume_token_expired`: read the documents again; 401, 403, 404).
   */
  readonly done: Promise<void>
  close(): void
}

/** Refused with an answer: reconnecting would be refused again. */
export class SubscriptionRefused extends Error {
  override name = 'SubscriptionRefused'
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the subscription was refused (${status})`)
  }
}

const OPERATIONS = new Set(['create', 'update', 'delete'])
/** Waits before reconnecting, unless the server's `retry:` says otherwise. */
const DEFAULT_RETRY_MS = 2000
/** An answer worth retrying: the server or a proxy is busy or restarting. */
const retryable = (status: number) => status === 429 || status >= 500

export interface Connection {
  baseUrl: string
  headers: Record<string, string>
  /** As openapi-fetch calls it: with a `Request`. */
  fetch: (request: Request) => Promise<Response>
}

/**
 * Opens `GET .../documents/changes` and calls `onEvent` with each change in order; when the stream ends (a
 * restart, a proxy, a slow reader told to resume) it reconnects with `Last-Event-ID`, so nothing is lost or
 * repeated. `onEvent` may be async: the next change waits for it.
 */
export function subscribe(
  connection: Connection,
  ddId: string,
  options: SubscribeOptions,
  onEvent: (change: Change) => void | Promise<void>,
): Subscription {
  const aborter = new AbortController()
  let lastEventId = options.lastEventId
  let retryMs = DEFAULT_RETRY_MS
  const search = new URLSearchParams()
  if (options.query) search.set('query', JSON.stringify(options.query))
  if (options.fields) search.set('fields', JSON.stringify(options.fields))
  const url = new URL(
    `/api/v2/document-definitions/${encodeURIComponent(ddId)}/documents/changes?${search}`,
    connection.baseUrl,
  )

  async function once(): Promise<void> {
    const response = await connection.fetch(
      new Request(url, {
        headers: {
          ...connection.headers,
          accept: 'text/event-stream',
          ...(lastEventId !== undefined && { 'last-event-id': lastEventId }),
        },
        signal: aborter.signal,
      }),
    )
    if (response.status !== 200 || !response.body) {
      const body: unknown = await response.json().catch(() => null)
      if (!retryable(response.status)) throw new SubscriptionRefused(response.status, body)
      return
    }
    options.onOpen?.()
    const changes: Change[] = []
    const parser = createParser({
      onRetry: (ms) => (retryMs = ms),
      onEvent: ({ id, event, data }) => {
        if (id === undefined || event === undefined || !OPERATIONS.has(event)) return
        changes.push({ ...(JSON.parse(data) as Omit<Change, 'id'>), id } as Change)
      },
    })
    const decoder = new TextDecoder()
    // A reader rather than `for await`: browsers without async iteration of streams (Safari) read it too.
    const reader = response.body.getReader()
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        parser.feed(decoder.decode(read.value, { stream: true }))
        for (const change of changes.splice(0)) {
          await onEvent(change)
          lastEventId = change.id
        }
      }
    } finally {
      reader.releaseLock()
    }
  }

  /** The pause before reconnecting; `close` ends it at once, so `done` settles without waiting it out. */
  const pause = () =>
    new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        aborter.signal.removeEventListener('abort', stop)
        resolve()
      }, retryMs)
      aborter.signal.addEventListener('abort', stop, { once: true })
    })

  async function run(): Promise<void> {
    while (!aborter.signal.aborted) {
      try {
        await once()
      } catch (error) {
        if (aborter.signal.aborted) return
        if (error instanceof SubscriptionRefused) throw error
        // A network failure: try again, as after the stream ended.
      }
      if (aborter.signal.aborted) return
      await pause()
    }
  }

  const done = run()
  return {
    get lastEventId() {
      return lastEventId
    },
    done,
    close: () => aborter.abort(),
  }
}
