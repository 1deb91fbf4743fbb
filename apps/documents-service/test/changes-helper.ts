import { request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { App } from '@quire/service-kit'
import { documentsOf } from './helper.js'

/** One event as a client reads it; `data` parsed. */
export interface Received {
  id?: string
  event: string
  data: unknown
}

/** Events of an open stream as they arrive, read by a real HTTP client (a stream never ends for `inject`). */
export class EventReader {
  readonly events: Received[] = []
  /** Comment lines received (heartbeats). */
  comments = 0
  ended = false
  #buffer = ''
  #waiters: (() => void)[] = []

  constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => this.#read(chunk))
    response.on('end', () => this.#finish())
    response.on('close', () => this.#finish())
    response.on('error', () => this.#finish())
  }

  #finish(): void {
    this.ended = true
    this.#wake()
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter()
  }

  #read(chunk: string): void {
    this.#buffer += chunk
    let end: number
    while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
      const block = this.#buffer.slice(0, end)
      this.#buffer = this.#buffer.slice(end + 2)
      const fields: Record<string, string> = {}
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments++
        const colon = line.indexOf(':')
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart()
      }
      if (fields.event !== undefined) {
        this.events.push({
          ...(fields.id !== undefined && { id: fields.id }),
          event: fields.event,
          data: JSON.parse(fields.data ?? 'null') as unknown,
        })
      }
    }
    this.#wake()
  }

  /** Resolves once `count` events arrived; rejects if the stream ends first. */
  async next(count: number): Promise<Received[]> {
    while (this.events.length < count) {
      if (this.ended) throw new Error(`the stream ended after ${this.events.length} events, ${count} awaited`)
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
    return this.events.slice(0, count)
  }

  /** Resolves once `count` comment lines (heartbeats) arrived; rejects if the stream ends first. */
  async nextComments(count: number): Promise<void> {
    while (this.comments < count) {
      if (this.ended) throw new Error(`the stream ended after ${this.comments} comments, ${count} awaited`)
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }

  /** Resolves once the server ended the stream. */
  async end(): Promise<Received[]> {
    while (!this.ended) await new Promise<void>((resolve) => this.#waiters.push(resolve))
    return this.events
  }

  close(): void {
    this.response.destroy()
  }
}

/** The base URL of `server`, listening on a loopback port (closed with the server). */
export async function listening(server: App): Promise<string> {
  await server.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`
}

export type Opened = { status: 200; reader: EventReader } | { status: number; body: { error: string } }

/**
 * `GET .../documents/changes` on `base`: the open stream (once its headers and opening arrived), or the refusal.
 */
export function subscribe(
  base: string,
  ddId: string,
  as: Record<string, string>,
  options: { query?: object; fields?: object; lastEventId?: string } = {},
): Promise<Opened> {
  const search = new URLSearchParams()
  if (options.query) search.set('query', JSON.stringify(options.query))
  if (options.fields) search.set('fields', JSON.stringify(options.fields))
  const url = `${base}${documentsOf(ddId)}/changes?${search.toString()}`
  const headers = {
    ...as,
    accept: 'text/event-stream',
    ...(options.lastEventId !== undefined && { 'last-event-id': options.lastEventId }),
  }
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      if (response.statusCode !== 200) {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) as { error: string } }),
        )
        return
      }
      // The opening (`retry:`) arrives first: once read, the subscription is counted and reading the log.
      response.once('readable', () => resolve({ status: 200, reader: new EventReader(response) }))
    })
      .on('error', reject)
      .end()
  })
}

/** `subscribe` that must succeed. */
export async function open(...args: Parameters<typeof subscribe>): Promise<EventReader> {
  const opened = await subscribe(...args)
  if (opened.status !== 200 || !('reader' in opened)) throw new Error(`not subscribed: ${JSON.stringify(opened)}`)
  return opened.reader
}
