import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { createServer, loadConfig, mountService, type App } from '@quire/service-kit'
import {
  accessToken,
  createEnvironment,
  createUser,
  headers,
  testResources,
  type SeededUser,
  type Teardown,
  type TestResources,
  type UserSeed,
} from '@quire/testing'
import { openRecordStore, type RecordStore } from '@quire/records'
import { COLLECTIONS } from '../src/collections.js'
import type { MailTransport } from '../src/plugins/mailer.js'
import { ConfigSchema } from '../src/config.js'
import { service } from '../src/service.js'

export const ADMIN = { username: 'admin', password: 'correct horse battery' }
/** The environment the bootstrap creates, and a second one for isolation tests. */
export const ENV_A = 'env-a'
export const ENV_B = 'env-b'

/** What no response may ever carry: the authentication part, hashes, or what tells about other environments. */
const SECRET_KEYS = new Set([
  'authentication',
  'passwordHash',
  'tokenHash',
  'totpSecret',
  'recoveryCodeHashes',
  'environmentIds',
  'activeEnvironmentIds',
])
/** A password hash, a token or recovery code hash, a sealed 2FA secret. */
const HASH_VALUE = /^(scrypt\$|v1\$|[0-9a-f]{64}$)/

/** The path of the first secret found in a parsed body, or null. */
export function findSecret(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return HASH_VALUE.test(value) ? path : null
  if (value === null || typeof value !== 'object') return null
  for (const [key, inner] of Object.entries(value)) {
    const found = SECRET_KEYS.has(key) ? `${path}.${key}` : findSecret(inner, `${path}.${key}`)
    if (found) return found
  }
  return null
}

export interface Built {
  server: App
  /** The mounted service's instance: its capabilities (`housekeeping`, `mailer`...) for tests to drive. */
  service: FastifyInstance
  resources: TestResources
  /** The fixed clock the service reads (epoch ms); tests move it. */
  clock: { now: number }
  /** `inject`, asserting that the answer holds no secret. */
  call(options: InjectOptions): Promise<LightMyRequestResponse>
  /** A user written straight to the store, with an access token issued a second ago. */
  user(seed: UserSeed): Promise<{ record: SeededUser; token: string }>
  /** An access token for `userId` as the users service issues it. */
  token(userId: string): string
  adminId: string
}

/** What a test may put in place of the real thing: a store wrapper (to count work), a mail transport. */
export interface BuildOptions {
  wrapStore?: (store: RecordStore) => RecordStore
  mailTransport?: MailTransport
}

const configOf = (dataDir: string, env: Record<string, string>) =>
  loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_ENVIRONMENT_ID: ENV_A,
    QUIRE_ADMIN_USERNAME: ADMIN.username,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    ...env,
  })

/**
 * A second users service over the same data dir, through its own store handle and with the same keys: another
 * replica of `built`'s deployment, for rules that must hold across replicas at once.
 */
export async function replica(t: Teardown, built: Built): Promise<App> {
  const { dataDir, keys } = built.resources
  const store = await openRecordStore({ dataDir })
  const server = createServer({ logLevel: 'silent' })
  await mountService(server, service, { store, keys, config: configOf(dataDir, {}), now: () => built.clock.now })
  // Registered before `built`'s teardowns run (they are last-in first-out): closed before the data dir goes.
  t.teardown(async () => {
    await server.close()
    await store.close()
  })
  await server.ready()
  return server
}

export async function build(
  t: Teardown & { fail(message: string): void },
  env: Record<string, string> = {},
  { wrapStore = (store) => store, mailTransport }: BuildOptions = {},
): Promise<Built> {
  const resources = await testResources(t)
  const config = configOf(resources.dataDir, env)
  const clock = { now: Date.parse('2030-01-01T00:00:10.000Z') }
  const server = createServer({ logLevel: 'silent' })
  // The service's own instance, where its capabilities are decorated (the mount encapsulates them).
  const instances: FastifyInstance[] = []
  server.addHook('onRegister', (instance) => {
    instances.push(instance)
  })
  // Mounted as the gateway mounts it, so a route outside the manifest's prefixes fails every test.
  await mountService(server, service, {
    store: wrapStore(resources.store),
    keys: resources.keys,
    config,
    now: () => clock.now,
    mailTransport,
  })
  t.teardown(() => server.close())
  await server.ready()
  const mounted = instances.find((instance) => instance.hasDecorator('housekeeping'))
  if (!mounted) throw new Error('the users service did not mount')
  await createEnvironment(resources.store, ENV_B)
  const admin = await COLLECTIONS.users.in(resources.store).findOne({ username: ADMIN.username })
  if (!admin) throw new Error('bootstrap did not create the administrator')
  // Issued in the past, so a revocation in the same millisecond still catches it.
  const token = (userId: string) => accessToken(resources.keys.privateKey, userId, { issuedAt: Date.now() - 1000 })
  return {
    server,
    service: mounted,
    resources,
    clock,
    adminId: admin._id,
    token,
    async call(options) {
      const response = await server.inject(options)
      const secret = String(response.headers['content-type']).startsWith('application/json')
        ? findSecret(response.json())
        : null
      if (secret) t.fail(`${options.method} ${options.url} answered with a secret at ${secret}`)
      return response
    },
    async user(seed) {
      const record = await createUser(resources.store, seed)
      return { record, token: token(record._id) }
    },
  }
}

export { headers }
