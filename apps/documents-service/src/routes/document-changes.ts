import type { ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  ChangesHeadersSchema,
  ChangesQuerystringSchema,
  ChangeStreamSchema,
  DefinitionParamsSchema,
} from '@quire/contracts'
import { REQUEST_ID_HEADER } from '@quire/service-kit'
import type { FeedSink } from '../domain/change-feed.js'
import { parseListQuery } from '../lib/list-query.js'

/** The schema documents what flows through the stream; the route writes it to the socket itself. */
const EventStream = Type.Unsafe<Readable>(ChangeStreamSchema)

/** Tells the client how long to wait before reconnecting, and sends the headers at once: the stream is open. */
const OPENING = 'retry: 2000\n\n'

/**
 * Server-sent events written straight to the response: its `write` says when the reader is behind, its 'drain'
 * when it caught up. Written here rather than through an SSE plugin or a stream handed to `reply.send`: an idle
 * subscription is mostly Node's objects for its response, and a piped stream adds its own and the pipeline's
 * listeners to every one (bench/feed.mjs: 18.1 KB live per idle subscription with a `PassThrough`). A class, so
 * a subscription holds one small object, its methods shared.
 */
class ResponseSink implements FeedSink {
  constructor(private readonly response: ServerResponse) {}

  write(text: string): boolean {
    const { response } = this
    return !response.destroyed && !response.writableEnded && response.write(text)
  }

  /** Resolves once the reader drained what was written, or went away (then nothing is written any more). */
  drained(): Promise<void> {
    const { response } = this
    if (response.destroyed) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        response.off('drain', done)
        response.off('close', done)
        resolve()
      }
      response.on('drain', done)
      response.on('close', done)
    })
  }

  end(): void {
    if (!this.response.writableEnded) this.response.end()
  }
}

/** `/api/v2/document-definitions/{ddId}/documents/changes`: server-sent events of the definition's documents. */
export const documentChangeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.requireEnvironment)

  app.get(
    '/',
    {
      schema: {
        params: DefinitionParamsSchema,
        querystring: ChangesQuerystringSchema,
        headers: ChangesHeadersSchema,
        response: { 200: { content: { 'text/event-stream': { schema: EventStream } } } },
      },
    },
    async function subscribeToChanges(request, reply) {
      const { filter, projection } = parseListQuery(request.query)
      const scope = request.scope
      const definition = await app.definitions.resolve(scope, request.params.ddId)
      // Refusals above and here (caps, an expired resume token) answer in the JSON envelope: nothing is sent yet.
      const subscription = await app.changeFeed.subscribe({
        scope,
        // What the feed reads of it: a subscription holds no copy of the definition's record.
        definition: { _id: definition._id, _environmentId: definition._environmentId },
        filter,
        projection,
        lastEventId: request.headers['last-event-id'],
        sink: new ResponseSink(reply.raw),
        // The checks every request passes, run again on this one: a revoked token or access ends the stream.
        // Holding the request costs nothing more: Fastify's own 'finish' listener holds it as long.
        recheck: async () => {
          await app.auth.requireEnvironment.call(app, request, reply)
          return request.scope
        },
      })
      reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        // What the server's `onSend` hook adds, which a hijacked reply skips; the edge's security and CORS
        // headers were set on the reply by `onRequest` hooks and go out with the rest.
        .header(REQUEST_ID_HEADER, request.id)
      reply.hijack()
      const response = reply.raw
      // Given to `writeHead` rather than set one by one: the response then keeps no table of them (1.8 KB).
      const headers: string[] = []
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        for (const one of [value ?? []].flat()) headers.push(name, String(one))
      }
      response.writeHead(200, headers)
      // Sent on their own, the headers' text goes to the socket as it is and is made flat there; written with
      // the first chunk, the response would keep the tree of concatenations it was built from (2.3 KB).
      response.flushHeaders()
      // A HEAD is told what a GET would get (its refusals included), and nothing is held open for it. The client
      // may also have gone while the subscription was made: its 'close' is then past.
      if (request.method === 'HEAD' || response.destroyed) {
        subscription.close()
        return
      }
      response.once('close', () => subscription.close())
      response.write(OPENING)
    },
  )
}
