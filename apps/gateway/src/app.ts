import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify'
import {
  describeRoutes,
  localCounts,
  mountService,
  openApiPlugin,
  type OpenApiDocument,
  type SharedCounts,
} from '@quire/service-kit'
import type { Config } from './config.js'
import { consolePlugin } from './plugins/console.js'
import { edgePlugin } from './plugins/edge.js'
import { proxyPlugin } from './plugins/proxy.js'
import { SERVICES, type LocalResources } from './route-table.js'
import { upstreamReadiness } from './upstream-readiness.js'

export interface GatewayOptions {
  config: Config
  /** Per service: a URL to proxy to, or `local` to mount its app in this process. */
  upstreams: Readonly<Record<string, string>>
  /** Needed when any service is `local`. */
  local?: LocalResources
  /** Budgets and caps of every process of the server (absent: this process counts alone). */
  counts?: SharedCounts
}

export const upstreamsFrom = (config: Config): Record<string, string> =>
  Object.fromEntries(SERVICES.map(({ manifest, urlVariable }) => [manifest.name, config[urlVariable] ?? 'local']))

/** The edge: the route table, each entry mounted in-process or proxied. */
export const app: FastifyPluginAsync<GatewayOptions> = async (
  fastify,
  { config, upstreams, local, counts = localCounts() },
) => {
  const upstreamOf = (name: string) => upstreams[name] ?? 'local'
  const remote = SERVICES.map(({ manifest }) => upstreamOf(manifest.name)).filter((upstream) => upstream !== 'local')
  await fastify.register(edgePlugin, {
    corsOrigins: config.QUIRE_CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    rateLimitPerMinute: config.QUIRE_RATE_LIMIT_PER_MINUTE,
    counts,
    maxEventLoopDelay: config.QUIRE_MAX_EVENT_LOOP_DELAY_MS,
  })
  await fastify.register(consolePlugin)
  await fastify.register(openApiPlugin, { title: 'Quire API v2', remotes: () => remoteDocuments(remote, fastify.log) })
  for (const { manifest } of SERVICES) {
    const upstream = upstreamOf(manifest.name)
    if (upstream !== 'local') {
      // Its pass-through routes are left out of the OpenAPI document: the service's own document is merged in.
      await fastify.register(async (proxied) => {
        describeRoutes(proxied, { hide: true })
        await proxied.register(proxyPlugin, { upstream, prefixes: manifest.prefixes })
      })
      // Not ready while a service it routes to is not: a load balancer then sends traffic elsewhere.
      fastify.addReadinessCheck(manifest.name, upstreamReadiness(upstream))
      continue
    }
    if (!local) throw new Error(`service ${manifest.name} is local but no local resources were given`)
    await mountService(fastify, manifest, { ...local, counts, config })
  }
}

export type { LocalResources } from './route-table.js'
export { ConfigSchema, type Config } from './config.js'

/** Each proxied service's own OpenAPI document; one that does not answer is left out, not fatal. */
async function remoteDocuments(urls: string[], log: FastifyBaseLogger): Promise<OpenApiDocument[]> {
  const documents = await Promise.all(
    urls.map(async (url) => {
      try {
        const res = await fetch(new URL('/docs/json', url), { signal: AbortSignal.timeout(2000) })
        if (res.ok) return (await res.json()) as OpenApiDocument
        log.warn({ url, status: res.status }, 'no OpenAPI document from upstream')
      } catch (err) {
        log.warn({ url, err }, 'no OpenAPI document from upstream')
      }
      return null
    }),
  )
  return documents.filter((document) => document !== null)
}
