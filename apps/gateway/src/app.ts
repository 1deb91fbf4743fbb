import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify'
import type { KeyPair } from '@quire/auth'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { app as documentsApp } from '@quire/documents-service'
import { app as packagesApp } from '@quire/packages-service'
import { app as usersApp } from '@quire/users-service'
import { openApiPlugin, type OpenApiDocument } from '@quire/service-kit'
import type { Config } from './config.js'
import { edgePlugin } from './plugins/edge.js'
import { proxyPlugin } from './plugins/proxy.js'
import { ROUTE_TABLE, SERVICE_NAMES, type ServiceName } from './route-table.js'

/** What locally mounted services share: one store, one file store, one key pair. */
export interface LocalResources {
  store: RecordStore
  files: FileStore
  keys: KeyPair
}

export interface GatewayOptions {
  config: Config
  /** Per service: a URL to proxy to, or `local` to mount its app in this process. */
  upstreams: Record<ServiceName, string>
  /** Needed when any service is `local`. */
  local?: LocalResources
}

export const upstreamsFrom = (config: Config): Record<ServiceName, string> => ({
  documents: config.QUIRE_DOCUMENTS_URL ?? 'local',
  users: config.QUIRE_USERS_URL ?? 'local',
  packages: config.QUIRE_PACKAGES_URL ?? 'local',
})

/** The edge: the route table, each entry mounted in-process or proxied. */
export const app: FastifyPluginAsync<GatewayOptions> = async (fastify, { config, upstreams, local }) => {
  const remote = SERVICE_NAMES.map((service) => upstreams[service]).filter((upstream) => upstream !== 'local')
  await fastify.register(edgePlugin, {
    corsOrigins: config.QUIRE_CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    rateLimitPerMinute: config.QUIRE_RATE_LIMIT_PER_MINUTE,
    maxEventLoopDelay: config.QUIRE_MAX_EVENT_LOOP_DELAY_MS,
  })
  await fastify.register(openApiPlugin, { title: 'Quire API v2', remotes: () => remoteDocuments(remote, fastify.log) })
  for (const service of SERVICE_NAMES) {
    const upstream = upstreams[service]
    if (upstream !== 'local') {
      await fastify.register(proxyPlugin, { upstream, prefixes: ROUTE_TABLE[service] })
      continue
    }
    if (!local) throw new Error(`service ${service} is local but no local resources were given`)
    if (service === 'documents') await fastify.register(documentsApp, { ...local, config })
    if (service === 'users') await fastify.register(usersApp, { ...local, config })
    if (service === 'packages') await fastify.register(packagesApp, { ...local, config })
  }
}

export default app
export { ROUTE_TABLE, type ServiceName } from './route-table.js'
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
