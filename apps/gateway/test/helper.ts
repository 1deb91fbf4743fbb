import type { FastifySchema } from 'fastify'
import { loadConfig, createServer, type App } from '@quire/service-kit'
import { testResources, type Teardown, type TestResources } from '@quire/testing'
import { app, upstreamsFrom, type LocalResources } from '../src/app.js'
import { ConfigSchema } from '../src/config.js'

export const ADMIN = { username: 'admin', password: 'correct horse battery' }

/** The gateway with every service local unless `env` points one at a URL; closed when the test ends. */
export interface Built {
  server: App
  resources: TestResources
  /** Every route the server registered, as `{method, url}`, with its schema (the abuse suite reads it). */
  routes: { method: string; url: string; schema?: FastifySchema }[]
}

/**
 * `wrap` replaces what the services get (a failing store, say) while `resources` keeps the real ones, so a
 * test can inspect what was stored behind the app's back.
 */
export async function build(
  t: Teardown,
  env: Record<string, string> = {},
  wrap?: (real: LocalResources) => LocalResources,
): Promise<Built> {
  const resources = await testResources(t)
  const config = loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: resources.dataDir,
    QUIRE_ADMIN_USERNAME: ADMIN.username,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    // Test files share two cores: a slow event loop is the machine's, not what these tests check (no 503 for it).
    QUIRE_MAX_EVENT_LOOP_DELAY_MS: '60000',
    ...env,
  })
  // As `server.ts` builds it: the same limits and timeouts.
  const server = createServer({
    logLevel: 'silent',
    bodyLimit: config.QUIRE_BODY_LIMIT,
    requestTimeout: config.QUIRE_REQUEST_TIMEOUT_MS,
    metricsToken: config.QUIRE_METRICS_TOKEN,
  })
  const routes: Built['routes'] = []
  server.addHook('onRoute', ({ method, url, schema }) => {
    for (const m of [method].flat()) routes.push({ method: m, url, schema })
  })
  await server.register(app, { config, upstreams: upstreamsFrom(config), local: wrap ? wrap(resources) : resources })
  t.teardown(() => server.close())
  await server.ready()
  return { server, resources, routes }
}
