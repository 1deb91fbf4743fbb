import { app, ConfigSchema, upstreamsFrom } from '@quire/gateway'
import { createServer, loadConfig } from '@quire/service-kit'
import type { testResources } from '@quire/testing'

export const ADMIN = { username: 'admin', password: 'correct horse battery' }
export const ADMIN_ENV = { QUIRE_ADMIN_USERNAME: ADMIN.username, QUIRE_ADMIN_PASSWORD: ADMIN.password }

type Resources = Awaited<ReturnType<typeof testResources>>

/** The all-in-one gateway over the test's resources, listening on a free port: its URL. Closed when the test ends. */
export async function serve(
  t: { teardown(fn: () => unknown): void },
  resources: Resources,
  env: Record<string, string> = ADMIN_ENV,
): Promise<string> {
  const config = loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: resources.dataDir,
    // Test files share two cores: no 503 for the machine's slow event loop.
    QUIRE_MAX_EVENT_LOOP_DELAY_MS: '60000',
    ...env,
  })
  const server = createServer({ logLevel: 'silent' })
  await server.register(app, { config, upstreams: upstreamsFrom(config), local: resources })
  t.teardown(() => server.close())
  return server.listen({ port: 0, host: '127.0.0.1' })
}
