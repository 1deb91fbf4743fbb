import type { FastifyPluginAsync } from 'fastify'
import proxy from '@fastify/http-proxy'
import type { IncomingHttpHeaders } from 'node:http'
import { errorBody, REQUEST_ID_HEADER } from '@quire/service-kit'

export interface ProxyOptions {
  upstream: string
  prefixes: readonly string[]
}

/** Headers only the gateway may set: a client's own values are dropped before forwarding. */
const INTERNAL_HEADER = /^(x-quire-|x-forwarded-|forwarded$|x-real-ip$)/

interface Client {
  id: string
  ip: string
  protocol: string
  host: string
}

function forwardHeaders(request: Client, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {}
  for (const [name, value] of Object.entries(headers)) {
    if (!INTERNAL_HEADER.test(name)) out[name] = value
  }
  out[REQUEST_ID_HEADER] = request.id
  out['x-forwarded-for'] = request.ip
  out['x-forwarded-proto'] = request.protocol
  if (request.host) out['x-forwarded-host'] = request.host
  return out
}

/**
 * Forwards every prefix of one service to its URL, paths unchanged and bodies unparsed (uploads stream
 * through). An unreachable service answers 502 `service_unavailable` in the envelope.
 */
export const proxyPlugin: FastifyPluginAsync<ProxyOptions> = async (app, { upstream, prefixes }) => {
  // The proxy adds its own pass-through parsers; the kit's JSON one (createServer) would clash with them.
  app.removeContentTypeParser('application/json')
  for (const prefix of prefixes) {
    await app.register(proxy, {
      upstream,
      prefix,
      rewritePrefix: prefix,
      replyOptions: {
        rewriteRequestHeaders: (request, headers) => forwardHeaders(request, headers),
        onError(reply, { error }) {
          reply.log.warn({ err: error, upstream }, 'upstream unreachable')
          void reply
            .code(502)
            .type('application/json; charset=utf-8')
            .send(errorBody('service_unavailable', `The service behind ${prefix} is unavailable`))
        },
      },
    })
  }
}
