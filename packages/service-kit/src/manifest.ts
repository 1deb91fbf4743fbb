import type { FastifyInstance, FastifyPluginAsync, FastifyPluginOptions } from 'fastify'

/**
 * What a service publishes of itself: the gateway builds its route table and its in-process mounts from these,
 * so a prefix cannot exist in the service and be missing at the edge.
 */
export interface ServiceManifest<Options extends FastifyPluginOptions> {
  readonly name: string
  /** Every public path of the service is one of these or lies under one. */
  readonly prefixes: readonly string[]
  /** The service as one plugin; it never listens. */
  readonly app: FastifyPluginAsync<Options>
}

const within = (url: string, prefixes: readonly string[]) =>
  prefixes.some((prefix) => url === prefix || url.startsWith(`${prefix}/`))

/**
 * Registers a service's app, refusing at start any route outside its prefixes: such a route would answer
 * all-in-one and be a 404 once the service runs behind the gateway's proxy.
 */
export async function mountService<Options extends FastifyPluginOptions>(
  server: FastifyInstance,
  manifest: ServiceManifest<Options>,
  options: Options,
): Promise<void> {
  await server.register(async function service(scoped) {
    scoped.addHook('onRoute', (route) => {
      if (!within(route.url, manifest.prefixes)) {
        throw new Error(`service ${manifest.name} registers ${route.url}, outside its prefixes`)
      }
    })
    await scoped.register(manifest.app, options)
  })
}
