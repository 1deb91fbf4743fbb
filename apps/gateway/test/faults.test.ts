import t from 'tap'
import { once } from 'node:events'
import { connect, type AddressInfo } from 'node:net'
import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'
import { FileStoreUnavailableError, type FileStore } from '@quire/files'
import {
  StoreUnavailableError,
  type Collection,
  type RecordStore,
  type StoredRecord,
  type Transaction,
} from '@quire/records'
import { DOCUMENTS_COLLECTIONS, documentsCollection } from '@quire/documents-service'
import { PACKAGES_COLLECTIONS } from '@quire/packages-service'
import { USERS_COLLECTIONS } from '@quire/users-service'
import { startApp } from './e2e/processes.js'
import { build } from './helper.js'
import { ENV, ENVELOPE, multipart, snapshot, type Caller, type Request, type World, world } from './hardening/world.js'

/** A store whose every call rejects with `StoreUnavailableError` once `failAfter(n)` calls have been made. */
function faultyStore(real: RecordStore) {
  let remaining = Number.POSITIVE_INFINITY
  const gate = async () => {
    if (remaining <= 0) throw new StoreUnavailableError('injected: the store went away')
    remaining--
  }
  const guard = <T extends StoredRecord>(collection: Collection<T>): Collection<T> => ({
    find: (...args) => gate().then(() => collection.find(...args)),
    findText: (...args) => gate().then(() => collection.findText(...args)),
    findOne: (...args) => gate().then(() => collection.findOne(...args)),
    count: (...args) => gate().then(() => collection.count(...args)),
    insertOne: (...args) => gate().then(() => collection.insertOne(...args)),
    updateOne: (...args) => gate().then(() => collection.updateOne(...args)),
    deleteOne: (...args) => gate().then(() => collection.deleteOne(...args)),
    deleteMany: (...args) => gate().then(() => collection.deleteMany(...args)),
    ensureIndex: (...args) => gate().then(() => collection.ensureIndex(...args)),
    dropIndex: (...args) => gate().then(() => collection.dropIndex(...args)),
    indexes: () => gate().then(() => collection.indexes()),
  })
  const store: RecordStore = {
    collection: (name) => guard(real.collection(name)),
    transaction: async (work) => {
      await gate()
      return real.transaction((tx) =>
        work({
          collection: (name) => guard(tx.collection(name)),
          append: (...entry) => tx.append(...entry),
        } satisfies Transaction),
      )
    },
    dropCollection: (name) => gate().then(() => real.dropCollection(name)),
    ping: () => gate().then(() => real.ping()),
    close: () => real.close(),
  }
  return {
    store,
    /** Lets `n` more calls through, then fails every one; `null` heals the store. */
    failAfter(n: number | null) {
      remaining = n ?? Number.POSITIVE_INFINITY
    },
  }
}

interface WriteRow {
  caller: Caller
  /** A fresh request per attempt (set up while the store is healthy). */
  request: (w: World) => Promise<Request>
}

const docs = (w: World) => `/api/v2/document-definitions/${w.definition._id}/documents`
const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`

/** Writes that touch the store more than once: each must fail whole or succeed whole. */
const WRITES: Record<string, WriteRow> = {
  'create a document': {
    caller: 'member',
    request: async (w) => ({
      method: 'POST',
      url: `${docs(w)}/new`,
      payload: { title: 'x', externalId: unique('ext') },
    }),
  },
  'create a document with an Idempotency-Key (a transaction)': {
    caller: 'member',
    request: async (w) => ({
      method: 'POST',
      url: `${docs(w)}/new`,
      payload: { title: 'x' },
      headers: { 'idempotency-key': unique('key') },
    }),
  },
  'patch a document': {
    caller: 'member',
    request: async (w) => ({
      method: 'PATCH',
      url: `${docs(w)}/${await w.newDocument()}`,
      payload: { title: 'patched' },
    }),
  },
  'delete a document with an attachment': {
    caller: 'member',
    request: async (w) => ({ method: 'DELETE', url: `${docs(w)}/${(await w.newAttachment()).documentId}` }),
  },
  'create a definition': {
    caller: 'administrator',
    request: async () => ({
      method: 'POST',
      url: '/api/v2/document-definitions',
      payload: { name: unique('dd'), indexes: [{ fields: { title: 1 } }] },
    }),
  },
  'create a user': {
    caller: 'administrator',
    request: async () => ({
      method: 'POST',
      url: '/api/v2/users',
      payload: { username: unique('user'), password: 'a long enough password' },
    }),
  },
  'issue a long-lived token': {
    caller: 'administrator',
    request: async (w) => ({
      method: 'POST',
      url: `/api/v2/users/${w.userIds.target}/long-lived-tokens`,
      payload: { name: 'ci' },
    }),
  },
  'install a package': {
    caller: 'administrator',
    request: async (w) => ({
      method: 'POST',
      url: '/api/v2/packages/installations',
      payload: { packageVersionId: w.versionId },
    }),
  },
}

const collections = (w: World) => [
  USERS_COLLECTIONS.users,
  USERS_COLLECTIONS.longLivedTokens,
  USERS_COLLECTIONS.auditLog,
  DOCUMENTS_COLLECTIONS.definitions,
  documentsCollection({ _id: w.definition._id, _environmentId: ENV }),
  DOCUMENTS_COLLECTIONS.idempotencyKeys,
  DOCUMENTS_COLLECTIONS.attachmentFiles,
  PACKAGES_COLLECTIONS.packageInstallations,
]

t.test('the store failing at any point of a write: 503 service_unavailable, and nothing half-written', async (t) => {
  let fault: ReturnType<typeof faultyStore> | undefined
  const w = await world(t, {}, (real) => {
    fault = faultyStore(real.store)
    return { ...real, store: fault.store }
  })
  if (!fault) throw new Error('the store was not wrapped')
  let cases = 0
  const committedBeforeFailure: string[] = []
  for (const [name, row] of Object.entries(WRITES)) {
    let succeeded = false
    // Fail at call 0, 1, 2, ... until the write gets through with every call it needs.
    for (let n = 0; n < 60 && !succeeded; n++) {
      const request = await row.request(w)
      const before = await snapshot(w.resources, collections(w))
      fault.failAfter(n)
      const res = await w.call(row.caller, request)
      fault.failAfter(null)
      cases++
      if (res.statusCode < 300) {
        succeeded = true
        t.pass(`${name}: succeeds once the store answers all its ${n} calls`)
        continue
      }
      t.equal(res.statusCode, 503, `${name}, store failing after ${n} calls: 503`, { body: res.body })
      t.match(res.json(), { ...ENVELOPE, error: 'service_unavailable' })
      t.notMatch(res.body, /injected|StoreUnavailable|lmdb|mongo/i, 'nothing of the cause leaks')
      const after = await snapshot(w.resources, collections(w))
      if (JSON.stringify(after) === JSON.stringify(before)) {
        t.pass(`${name}, store failing after ${n} calls: nothing written`)
        continue
      }
      // The write committed and a later read failed: it must then be whole, so the client's retry completes.
      const retry = await w.call(row.caller, request)
      t.ok(retry.statusCode < 300, `${name}, store failing after ${n} calls: committed whole, the retry succeeds`, {
        body: retry.body,
      })
      committedBeforeFailure.push(`${name} (after ${n} calls)`)
    }
    t.ok(succeeded, `${name}: eventually succeeds`)
  }
  t.comment(
    `store faults: ${cases} requests; committed before the failing call: ${committedBeforeFailure.join(', ') || 'none'}`,
  )
})

t.test('the file store failing during an upload: 503, and no metadata points at a missing file', async (t) => {
  let failing = false
  const w = await world(t, {}, (real) => {
    const files: FileStore = {
      ...real.files,
      put: async (key: string, source: Readable, options: { size: number; contentType: string }) => {
        if (failing) {
          source.resume()
          throw new FileStoreUnavailableError('injected: the bucket went away')
        }
        return real.files.put(key, source, options)
      },
      get: (...args) => real.files.get(...args),
      stat: (...args) => real.files.stat(...args),
      exists: (...args) => real.files.exists(...args),
      copy: (...args) => real.files.copy(...args),
      remove: (...args) => real.files.remove(...args),
      close: () => real.files.close(),
    }
    return { ...real, files }
  })
  const documentId = await w.newDocument()
  const before = await snapshot(w.resources, collections(w))
  failing = true
  const body = multipart([
    { filename: 'a.txt', content: 'first' },
    { filename: 'b.txt', content: 'second' },
  ])
  const res = await w.call('member', {
    method: 'POST',
    url: `${docs(w)}/${documentId}/attachments?valuePath=files`,
    ...body,
  })
  failing = false
  t.equal(res.statusCode, 503, 'service_unavailable', { body: res.body })
  t.match(res.json(), { ...ENVELOPE, error: 'service_unavailable' })
  t.same(await snapshot(w.resources, collections(w)), before, 'neither the document nor the file records changed')
  const records = await DOCUMENTS_COLLECTIONS.attachmentFiles.in(w.resources.store).find({})
  for (const record of records) t.ok(await w.resources.files.exists(record._id), `${record._id}: its file exists`)
})

t.test('a slow client cannot hold the server: the request timeout closes its connection', async (t) => {
  const { server } = await build(t, { QUIRE_REQUEST_TIMEOUT_MS: '200' })
  await server.listen({ port: 0, host: '127.0.0.1' })
  const { port } = server.server.address() as AddressInfo
  const slow = {
    'headers that never end': 'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n',
    'a body that never comes':
      'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"user',
    'an idle connection': '',
  }
  for (const [name, sent] of Object.entries(slow)) {
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    if (sent) socket.write(sent)
    socket.on('data', () => undefined)
    socket.on('error', () => undefined)
    // No sleep: the server must close it; tap's own timeout fails the test if it never does.
    await once(socket, 'close')
    t.pass(`${name}: closed by the server`)
  }
})

t.test('SIGKILL during a burst of creates loses no acknowledged document', async (t) => {
  const dataDir = t.testdir({})
  const env = { QUIRE_DATA_DIR: dataDir, QUIRE_ADMIN_PASSWORD: 'correct horse battery' }
  const first = await startApp('gateway', env)
  t.teardown(() => first.stop())
  const login = async (url: string) => {
    const res = await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: env.QUIRE_ADMIN_PASSWORD }),
    })
    const { data } = (await res.json()) as { data: { accessToken: string } }
    return {
      authorization: `Bearer ${data.accessToken}`,
      'environment-id': 'default',
      'content-type': 'application/json',
    }
  }
  const headers = await login(first.url)
  const definition = await fetch(`${first.url}/api/v2/document-definitions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'burst' }),
  })
  t.equal(definition.status, 201)

  const KILL_AFTER = 150
  const acknowledged: string[] = []
  const exited = once(first.child, 'exit')
  let killed = false
  const worker = async (id: number) => {
    for (let i = 0; !killed; i++) {
      try {
        const res = await fetch(`${first.url}/api/v2/document-definitions/burst/documents/new`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ worker: id, i }),
        })
        if (res.status !== 201) continue
        acknowledged.push(((await res.json()) as { data: { _id: string } }).data._id)
        if (acknowledged.length >= KILL_AFTER && !killed) {
          killed = true
          first.child.kill('SIGKILL')
        }
      } catch {
        return // the connection died with the process
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, (_, id) => worker(id)))
  await exited
  t.ok(acknowledged.length >= KILL_AFTER, `${acknowledged.length} creates acknowledged before the kill`)

  const second = await startApp('gateway', env)
  t.teardown(() => second.stop())
  const again = await login(second.url)
  const stored = new Set<string>()
  for (let after: string | undefined; ;) {
    const page = await fetch(
      `${second.url}/api/v2/document-definitions/burst/documents?limit=800${after ? `&after=${after}` : ''}`,
      { headers: again },
    )
    const { data, pagination } = (await page.json()) as { data: { _id: string }[]; pagination: { hasNext: boolean } }
    for (const document of data) stored.add(document._id)
    if (!pagination.hasNext) break
    after = data.at(-1)?._id
  }
  const lost = acknowledged.filter((id) => !stored.has(id))
  t.same(
    lost,
    [],
    `every one of the ${acknowledged.length} acknowledged documents is there after the restart (${stored.size} stored)`,
  )
})
