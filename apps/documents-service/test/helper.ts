import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { openFileStore, type FileStore } from '@quire/files'
import type { Collection, RecordStore, StoredRecord, Transaction } from '@quire/records'
import { createServer, mountService, type App } from '@quire/service-kit'
import {
  accessToken,
  createEnvironment,
  createUser,
  headers,
  testResources,
  type TestResources,
  type UserSeed,
} from '@quire/testing'
import { documentsCollection } from '../src/collections.js'
import { DocumentsConfigSchema, service, type DocumentsConfig } from '../src/service.js'

export const ENV_A = 'env_a'
const ENV_B = 'env_b'

/** The part of a tap test these helpers use. */
export interface TestContext {
  teardown(fn: () => unknown): void
  testdir(): string
}

/** Where attachment files go: the data dir (`local`), or an s3rver started for the test (`minio`). */
export type Adapter = 'local' | 'minio'
export const ADAPTERS: Adapter[] = ['local', 'minio']

export interface Built {
  server: App
  resources: TestResources
  files: FileStore
  config: DocumentsConfig
  /** Spool directory of uploads (`QUIRE_UPLOAD_DIR`). */
  uploadDir: string
  /** Where the adapter keeps its bytes on disk: the data dir's `files`, or s3rver's directory. */
  storageDir: string
  adapter: Adapter
  /** Headers of an administrator of A (`admin`), of B (`adminB`), of members of A, and of B's member in A. */
  as: {
    admin: Record<string, string>
    adminB: Record<string, string>
    member: Record<string, string>
    sales: Record<string, string>
    outsider: Record<string, string>
  }
}

interface S3rverInstance {
  run(): Promise<AddressInfo>
  close(): Promise<void>
}
type S3rverClass = new (options: {
  address: string
  port: number
  silent: boolean
  directory: string
}) => S3rverInstance

// s3rver is a dev dependency of @quire/files (whose suite uses it): resolved from there, not installed twice.
const S3rver = createRequire(new URL('../../../packages/files/package.json', import.meta.url))('s3rver') as S3rverClass

/** A file store on an s3rver started for this test on a loopback port. */
async function s3rverStore(t: TestContext, directory: string): Promise<FileStore> {
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory })
  const { port } = await s3rver.run()
  t.teardown(() => s3rver.close())
  const files = await openFileStore({
    dataDir: directory,
    s3: {
      endPoint: '127.0.0.1',
      port,
      useSSL: false,
      accessKey: 'S3RVER',
      secretKey: 'S3RVER',
      bucket: 'quire-test',
      region: 'us-east-1',
    },
  })
  t.teardown(() => files.close())
  return files
}

/**
 * The documents service alone, mounted as its manifest says, on a fresh store with environments A and B and a
 * few callers; attachment files on the chosen adapter (`local` by default).
 */
export async function build(
  t: TestContext,
  {
    adapter = 'local',
    config = {},
    resources: shared,
    prepare,
    keys: keyChoice = 'pair',
  }: {
    adapter?: Adapter
    config?: Partial<DocumentsConfig>
    /** Another app's resources: a second app on the same store (a restart, a replica), with new callers. */
    resources?: TestResources
    /** Given the server before the service is mounted: a test's own routes and hooks (hooks reach the service's). */
    prepare?: (server: App) => void
    /** `public-only`: the service is given the public key alone, as in the compose stack (no secrets key). */
    keys?: 'pair' | 'public-only'
  } = {},
): Promise<Built> {
  const resources = shared ?? (await testResources(t))
  const { store, keys } = resources
  const uploadDir = t.testdir()
  const storageDir = adapter === 'local' ? join(resources.dataDir, 'files') : join(resources.dataDir, 's3rver')
  const files = adapter === 'local' ? resources.files : await s3rverStore(t, storageDir)
  if (!shared) {
    await createEnvironment(store, ENV_A)
    await createEnvironment(store, ENV_B)
  }
  const tokenOf = async (environments: UserSeed['environments']) =>
    accessToken(keys.privateKey, (await createUser(store, { environments }))._id)
  const as = {
    admin: headers(await tokenOf({ [ENV_A]: { administrator: true } }), ENV_A),
    adminB: headers(await tokenOf({ [ENV_B]: { administrator: true } }), ENV_B),
    member: headers(await tokenOf({ [ENV_A]: {} }), ENV_A),
    sales: headers(await tokenOf({ [ENV_A]: { groups: ['sales'] } }), ENV_A),
    outsider: headers(await tokenOf({ [ENV_B]: {} }), ENV_A),
  }
  // A run's CPU is the time its guest code runs, and test files share two cores: ample script limits unless a test
  // sets its own, so a descheduled worker is not a failed action.
  const roomy = { QUIRE_SCRIPT_CPU_MS: 1_000, QUIRE_SCRIPT_WALL_MS: 60_000 }
  const full = Value.Default(DocumentsConfigSchema, {
    ...roomy,
    ...config,
    QUIRE_UPLOAD_DIR: uploadDir,
  }) as DocumentsConfig
  const server = createServer({ logLevel: 'silent' })
  prepare?.(server)
  const given = keyChoice === 'pair' ? keys : { publicKey: keys.publicKey }
  await mountService(server, service, { ...resources, keys: given, files, config: full })
  t.teardown(() => server.close())
  await server.ready()
  return { server, resources, files, config: full, uploadDir, storageDir, adapter, as }
}

/** The stored documents of a definition of environment A, to look into (or seed) the store from a test. */
export const storedDocuments = (store: RecordStore | Transaction, definitionId: string) =>
  documentsCollection({ _id: definitionId, _environmentId: ENV_A }).in(store)

export const DEFINITIONS = '/api/v2/document-definitions'
export const documentsOf = (ddId: string) => `${DEFINITIONS}/${encodeURIComponent(ddId)}/documents`

/** Creates a definition as the administrator of A (or of the given headers) and returns it. */
export async function createDefinition(server: App, as: Record<string, string>, body: Record<string, unknown>) {
  const response = await server.inject({ method: 'POST', url: DEFINITIONS, headers: as, payload: body })
  if (response.statusCode !== 201) throw new Error(`definition not created: ${response.body}`)
  return response.json().data as { _id: string; name: string; _hash: string }
}

/** Creates a document in definition `ddId` and returns it. */
export async function createDocument(
  server: App,
  as: Record<string, string>,
  ddId: string,
  body: Record<string, unknown> = {},
) {
  const response = await server.inject({ method: 'POST', url: `${documentsOf(ddId)}/new`, headers: as, payload: body })
  if (response.statusCode !== 201) throw new Error(`document not created: ${response.body}`)
  return response.json().data as { _id: string; _hash: string } & Record<string, unknown>
}

export async function getDocument(server: App, as: Record<string, string>, ddId: string, id: string) {
  const response = await server.inject({
    method: 'GET',
    url: `${documentsOf(ddId)}/${encodeURIComponent(id)}`,
    headers: as,
  })
  return response.json() as { _id: string; _hash: string } & Record<string, unknown>
}

/**
 * From now on, collections of `store` whose name passes `matches` answer with `override`'s methods first (each
 * given the real collection): a test's way to delay, observe or fail one store call the service makes.
 */
export function intercept(
  store: RecordStore,
  matches: (name: string) => boolean,
  override: (real: Collection) => Partial<Collection>,
): void {
  const open = store.collection.bind(store)
  store.collection = <T extends StoredRecord = StoredRecord>(name: string): Collection<T> => {
    const real = open<T>(name)
    if (!matches(name)) return real
    const overrides: Partial<Collection> = override(real as unknown as Collection)
    return new Proxy(real, {
      get(target, property) {
        if (Object.hasOwn(overrides, property)) return Reflect.get(overrides, property)
        const value: unknown = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  }
}
