import { createServer, loadConfig, mountService, type App } from '@quire/service-kit'
import type { RecordStore } from '@quire/records'
import { accessToken, createUser, headers, testResources, type Teardown, type UserSeed } from '@quire/testing'
import { ConfigSchema } from '../src/config.js'
import { service } from '../src/service.js'

export interface Harness {
  server: App
  store: RecordStore
  /** Creates a user and returns the headers of its calls, for the given environment or none. */
  signIn(seed: UserSeed): Promise<{ userId: string; headers: (environmentId?: string) => Record<string, string> }>
  /** A valid token of a user, for crafting refusals (expired tokens, ...). */
  token(userId: string, options?: { expiresIn?: number }): string
}

/**
 * The packages service alone on a fresh store, mounted as the gateway mounts it, closed when the test ends.
 * `env`: config variables, as the process would read them; `wrapStore`: what the service gets of the store.
 */
export async function build(
  t: Teardown,
  env: Record<string, string> = {},
  { wrapStore = (store) => store }: { wrapStore?: (store: RecordStore) => RecordStore } = {},
): Promise<Harness> {
  const { store, keys } = await testResources(t)
  const server = createServer({ logLevel: 'silent' })
  await mountService(server, service, { store: wrapStore(store), keys, config: loadConfig(ConfigSchema, env) })
  t.teardown(() => server.close())
  await server.ready()
  const token = (userId: string, options = {}) => accessToken(keys.privateKey, userId, options)
  return {
    server,
    store,
    token,
    async signIn(seed) {
      const user = await createUser(store, seed)
      const bearer = token(user._id)
      return { userId: user._id, headers: (environmentId) => headers(bearer, environmentId) }
    },
  }
}
