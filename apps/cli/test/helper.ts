import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, Readable } from 'node:stream'
import { loadKeyPair } from '@quire/auth'
import { RECORDS_COMPRESSION_DICTIONARY, RECORDS_UNCARRIED_FIELDS } from '@quire/documents-service'
import { openFileStore } from '@quire/files'
import { app, ConfigSchema, upstreamsFrom } from '@quire/gateway'
import { openRecordStore, type RecordStore } from '@quire/records'
import { createServer, loadConfig, type App } from '@quire/service-kit'
import type { Teardown } from '@quire/testing'
import { run } from '../src/program.js'

const ADMIN = { username: 'admin', password: 'correct horse battery' }
export const DEFINITIONS = '/api/v2/document-definitions'

/** A fresh directory, removed when the test ends. */
export async function tempDir(t: Teardown, prefix = 'quire-cli-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** Every folder and file under `dir` (itself as `.`) whose mode lets group or others in, with that mode. */
export async function notOwnerOnly(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const paths = [dir, ...entries.map((entry) => join(entry.parentPath, entry.name))]
  const loose: Record<string, string> = {}
  for (const path of paths) {
    const mode = (await stat(path)).mode & 0o777
    if (mode !== 0o700 && mode !== 0o600) loose[path.slice(dir.length + 1) || '.'] = mode.toString(8)
  }
  return loose
}

/** `quire <argv>` in this process with `env` as its environment; what it printed and its exit code. */
export async function quire(argv: string[], env: Record<string, string>, stdin = '') {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out: Buffer[] = []
  const err: Buffer[] = []
  stdout.on('data', (chunk: Buffer) => out.push(chunk))
  stderr.on('data', (chunk: Buffer) => err.push(chunk))
  const code = await run(argv, { env, stdin: Readable.from([stdin]), stdout, stderr })
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }
}

export interface Running {
  server: App
  store: RecordStore
  close(): Promise<void>
}

/**
 * The all-in-one server over `dataDir`, opened as `npm start` opens it (the store with its dictionary, local
 * files, the key pair generated into the data dir), answering through `inject`. Closed when the test ends.
 */
export async function serve(t: Teardown, dataDir: string): Promise<Running> {
  const config = loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_ADMIN_USERNAME: ADMIN.username,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    // Test files share two cores: a slow event loop is the machine's, not what these tests check (no 503 for it).
    QUIRE_MAX_EVENT_LOOP_DELAY_MS: '60000',
  })
  const store = await openRecordStore({
    dataDir,
    compressionDictionary: RECORDS_COMPRESSION_DICTIONARY,
    uncarriedFields: RECORDS_UNCARRIED_FIELDS,
  })
  const files = await openFileStore({ dataDir })
  const keys = await loadKeyPair({ dataDir })
  const server = createServer({ logLevel: 'silent' })
  await server.register(app, { config, upstreams: upstreamsFrom(config), local: { store, files, keys } })
  await server.ready()
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await server.close()
    await files.close()
    await store.close()
  }
  t.teardown(close)
  return { server, store, close }
}

/** Signs in through the gateway; the status and, on success, the headers of an authenticated call. */
export async function login(server: App, username: string, password: string, environmentId?: string) {
  const response = await server.inject({ method: 'POST', url: '/auth/login', payload: { username, password } })
  if (response.statusCode !== 200) return { status: response.statusCode, headers: {} }
  const token = (response.json() as { data: { accessToken: string } }).data.accessToken
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (environmentId) headers['environment-id'] = environmentId
  return { status: 200, headers }
}

/**
 * As `headers` (an administrator of `default`): the definition `orders` and one document of it holding one uploaded
 * file under `files`; the upload's status and the document's id.
 */
export async function orderWithFile(server: App, headers: Record<string, string>, content: Uint8Array | string) {
  await server.inject({ method: 'POST', url: DEFINITIONS, headers, payload: { name: 'orders' } })
  const documents = `${DEFINITIONS}/orders/documents`
  const document = await server.inject({ method: 'POST', url: `${documents}/new`, headers, payload: {} })
  const documentId = (document.json() as { data: { _id: string } }).data._id
  const upload = await server.inject({
    method: 'POST',
    url: `${documents}/${documentId}/attachments?valuePath=files`,
    headers,
    payload: form([{ name: 'a.txt', content }]),
  })
  return { status: upload.statusCode, body: upload.body, documentId }
}

/** `GET url` as `headers`, answered 200; its `data`. */
export async function list(server: App, url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await server.inject({ method: 'GET', url, headers })
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${response.body}`)
  return (response.json() as { data: unknown }).data
}

/** A multipart body with one `file` part per upload. */
export function form(uploads: { name: string; content: Uint8Array | string }[]): FormData {
  const body = new FormData()
  for (const { name, content } of uploads) body.append('file', new File([content], name, { type: 'text/plain' }))
  return body
}

/** An attachment a document holds: where it downloads from, and the bytes it must answer. */
export interface Held {
  url: string
  bytes: string
}

/**
 * Definitions `orders` and `notes`: an upload on an order copied (`copyAttachments`) to another order and to a
 * note, then removed from the first order, so both copies read a stored file whose own attachment is gone; and
 * an upload of its own on a third order. What each document holds.
 */
export async function withCopies(server: App, headers: Record<string, string>): Promise<Held[]> {
  const create = async (definition: string) => {
    const url = `${DEFINITIONS}/${definition}/documents`
    const response = await server.inject({ method: 'POST', url: `${url}/new`, headers, payload: {} })
    if (response.statusCode !== 201) throw new Error(response.body)
    return { url, _id: (response.json() as { data: { _id: string } }).data._id }
  }
  const upload = async (document: { url: string; _id: string }, content: string) => {
    const response = await server.inject({
      method: 'POST',
      url: `${document.url}/${document._id}/attachments?valuePath=files`,
      headers,
      payload: form([{ name: 'a.txt', content }]),
    })
    if (response.statusCode !== 201) throw new Error(response.body)
    return (response.json() as { data: { attachments: { _id: string }[] } }).data.attachments[0]?._id ?? ''
  }
  for (const name of ['orders', 'notes']) {
    await server.inject({ method: 'POST', url: DEFINITIONS, headers, payload: { name } })
  }
  const [first, second, note, third] = [
    await create('orders'),
    await create('orders'),
    await create('notes'),
    await create('orders'),
  ]
  const original = await upload(first, 'shared bytes')
  const copy = await server.inject({
    method: 'POST',
    url: '/api/v2/documents/copyAttachments',
    headers,
    payload: [second, note].map((target) => ({
      source: { ddName: 'orders', _id: first._id, valuePath: 'files' },
      target: { ddName: target.url.split('/')[4], _id: target._id, valuePath: 'files' },
    })),
  })
  if (copy.statusCode !== 200) throw new Error(copy.body)
  const copies = (copy.json() as { data: { attachments: { _id: string }[] }[] }).data.map(
    ({ attachments }) => attachments[0]?._id ?? '',
  )
  const removed = await server.inject({
    method: 'DELETE',
    url: `${first.url}/${first._id}/attachments/${original}`,
    headers,
  })
  if (removed.statusCode !== 200) throw new Error(removed.body)
  const own = await upload(third, 'bytes of its own')
  return [
    { url: `${second.url}/${second._id}/attachments/${copies[0]}`, bytes: 'shared bytes' },
    { url: `${note.url}/${note._id}/attachments/${copies[1]}`, bytes: 'shared bytes' },
    { url: `${third.url}/${third._id}/attachments/${own}`, bytes: 'bytes of its own' },
  ]
}

/** What each attachment of `held` answers as `headers`: its status and body. */
export async function downloads(server: App, held: Held[], headers: Record<string, string>) {
  const answers: { status: number; body: string }[] = []
  for (const { url } of held) {
    const response = await server.inject({ method: 'GET', url, headers })
    answers.push({ status: response.statusCode, body: response.body })
  }
  return answers
}
