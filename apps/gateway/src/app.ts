import type { FastifyPluginAsync } from 'fastify'
import type { KeyPair } from '@quire/auth'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { app as documentsApp } from '@quire/documents-service'
import { app as packagesApp } from '@quire/packages-service'
import { app as usersApp } from '@quire/users-service'
import type { Config } from './config.js'
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
