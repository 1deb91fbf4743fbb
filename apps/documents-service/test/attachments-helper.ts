import { readdir } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import type { Attachment } from '@quire/contracts'
import { openFileStore, type FileStore } from '@quire/files'
import { createServer, type App } from '@quire/service-kit'
import {
  accessToken,
  createEnvironment,
  createUser,
  headers,
  testResources,
  type TestResources,
  type UserSeed,
} from '@quire/testing'
import { app } from '../src/app.js'
import { DocumentsConfigSchema, type DocumentsConfig } from '../src/config.js'
import { ENV_A, ENV_B, createDefinition, documentsOf } from './helper.js'

export { ENV_A, ENV_B, createDefinition, documentsOf }

/** The part of a tap test these helpers use. */
export interface TestContext {
  teardown(fn: () => unknown): void
  testdir(): string
}

export type Adapter = 'local' | 'minio'
export const ADAPTERS: Adapter[] = ['local', 'minio']

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

export interface World {
  server: App
  resources: TestResources
  files: FileStore
  config: DocumentsConfig
  /** Spool directory of uploads (`QUIRE_UPLOAD_DIR`). */
  uploadDir: string
  /** Where the adapter keeps its bytes on disk: the data dir's `files`, or s3rver's directory. */
  storageDir: string
  adapter: Adapter
  as: {
    admin: Record<string, string>
    member: Record<string, string>
    sales: Record<string, string>
    adminB: Record<string, string>
  }
}

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

/** The documents service on a fresh store with environments A and B, files on the chosen adapter. */
export async function buildWorld(
  t: TestContext,
  adapter: Adapter,
  config: Partial<DocumentsConfig> = {},
): Promise<World> {
  const resources = await testResources(t)
  const { store, keys } = resources
  const uploadDir = t.testdir()
  const storageDir = adapter === 'local' ? join(resources.dataDir, 'files') : join(resources.dataDir, 's3rver')
  const files = adapter === 'local' ? resources.files : await s3rverStore(t, storageDir)
  await createEnvironment(store, ENV_A)
  await createEnvironment(store, ENV_B)
  const tokenOf = async (environments: UserSeed['environments']) =>
    accessToken(keys.privateKey, (await createUser(store, { environments }))._id)
  const as = {
    admin: headers(await tokenOf({ [ENV_A]: { administrator: true } }), ENV_A),
    member: headers(await tokenOf({ [ENV_A]: {} }), ENV_A),
    sales: headers(await tokenOf({ [ENV_A]: { groups: ['sales'] } }), ENV_A),
    adminB: headers(await tokenOf({ [ENV_B]: { administrator: true } }), ENV_B),
  }
  const full = Value.Default(DocumentsConfigSchema, { ...config, QUIRE_UPLOAD_DIR: uploadDir }) as DocumentsConfig
  const server = createServer({ logLevel: 'silent' })
  await server.register(app, { ...resources, files, config: full })
  t.teardown(() => server.close())
  await server.ready()
  return { server, resources, files, config: full, uploadDir, storageDir, adapter, as }
}

/** Every regular file under `dir` (empty directories do not count). */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

export interface Upload {
  name: string
  content: Uint8Array | string
  type?: string
}

/** The objects the file store holds, as files on disk (s3rver keeps metadata files next to each object). */
export async function storedObjects(world: Pick<World, 'adapter' | 'storageDir'>): Promise<string[]> {
  const paths = await filesUnder(world.storageDir)
  return world.adapter === 'local' ? paths : paths.filter((path) => path.endsWith('._S3rver_object'))
}

/** A multipart body with one `file` part per upload. */
export function form(uploads: Upload[]): FormData {
  const body = new FormData()
  for (const { name, content, type } of uploads) {
    body.append('file', new File([content], name, { type: type ?? 'text/plain' }))
  }
  return body
}

export const attachmentsOf = (ddId: string, id: string) => `${documentsOf(ddId)}/${encodeURIComponent(id)}/attachments`

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

/** `POST .../attachments?<query>` with the uploads; the raw response. */
export function upload(
  server: App,
  as: Record<string, string>,
  ddId: string,
  id: string,
  query: string,
  uploads: Upload[],
  method: 'POST' | 'PUT' = 'POST',
) {
  return server.inject({ method, url: `${attachmentsOf(ddId, id)}?${query}`, headers: as, payload: form(uploads) })
}

/** The file key the service uses, to look into the store from a test. */
export const keyOf = (
  environmentId: string,
  definitionId: string,
  documentId: string,
  attachment: Pick<Attachment, '_id'>,
) => `${environmentId}/${definitionId}/${documentId}/${attachment._id}`

/** A PNG signature and header chunk: all image-size needs to read `width`×`height`. */
export function pngHeader(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(33)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).copy(bytes, 0)
  bytes.writeUInt32BE(width, 16)
  bytes.writeUInt32BE(height, 20)
  bytes.set([8, 6, 0, 0, 0], 24)
  return bytes
}
