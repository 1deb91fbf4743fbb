import { once } from 'node:events'
import { PassThrough, type Readable } from 'node:stream'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  ChangesHeadersSchema,
  ChangesQuerystringSchema,
  ChangeStreamSchema,
  DefinitionParamsSchema,
} from '@quire/contracts'
import type { FeedSink } from '../domain/change-feed.js'
import { parseListQuery } from '../lib/list-query.js'

/** The stream is sent as a Node stream; the schema documents what flows through it. */
const EventStream = Type.Unsafe<Readable>(ChangeStreamSchema)

/** Tells the client how long to wait before reconnecting, and sends the headers at once: the stream is open. */
const OPENING = 'retry: 2000\n\n'

/**
 * A stream the response pipes to the socket: its `write` says when the reader is behind. Server-sent events are
 * written here rather than through an SSE plugin: the feed serializes each event once per subscriber and needs
 * the stream's backpressure to bound what waits for a slow reader, which is all an SSE writer is.
 */
function sinkOf(stream: PassThrough): FeedSink {
  return {
    write: (text) => !stream.destroyed && stream.write(text),
    drained: async () => {
      if (!stream.destroyed) await once(stream, 'drain')
    },
    end: () => stream.end(),
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
      const stream = new PassThrough()
      const subscription = await app.changeFeed.subscribe({
        scope,
        definition,
        filter,
        projection,
        lastEventId: request.headers['last-event-id'],
        sink: sinkOf(stream),
        // The checks every request passes, run again on this one: a revoked token or access ends the stream.
        recheck: async () => {
          await app.auth.requireEnvironment.call(app, request, reply)
          return request.scope
        },
      })
      reply.raw.once('close', () => {
        subscription.close()
        stream.destroy()
      })
      stream.write(OPENING)
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .send(stream)
    },
  )
}
