import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import type { Collection, RecordStore, StoredRecord } from '@quire/records'
import { createUser, type Teardown } from '@quire/testing'
import { documentsCollection } from '@quire/documents-service'
import { USERS_COLLECTIONS } from '@quire/users-service'
import { ENV, ENVELOPE, multipart, type World, world } from './hardening/world.js'

/**
 * Noisy neighbours (issue 25), through the gateway: what one tenant can send must neither stall the others nor
 * break a guarantee. Each case asserts the status, the envelope and what is stored.
 */

/** Whether a collection holds documents of `ENV`: the owner's name for them, without a definition id, is its prefix. */
const isDocuments = (name: string) => name.startsWith(documentsCollection({ _id: '', _environmentId: ENV }).name)

const LONG = 'a'.repeat(20_000)
/** Nested quantifiers: exponential for a backtracking engine on `LONG + '!'`, linear for RE2. */
const CATASTROPHIC = '^(a+)+$'

/** Calls to watch in the store the services get: `started(name)` resolves once such a call has begun. */
interface Watch {
  started(collection: (name: string) => boolean, method: 'find' | 'findText'): Promise<void>
  ensured: string[]
}

/** The store as the services get it, reporting reads and index builds of the collections a test watches. */
interface Waiter {
  test: (name: string) => boolean
  method: string
  go: () => void
}

function watched(store: RecordStore, watch: Watch, waiting: Waiter[]): RecordStore {
  const open = store.collection.bind(store)
  const collection = <T extends StoredRecord = StoredRecord>(name: string): Collection<T> => {
    const real = open<T>(name)
    return new Proxy(real, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (property === 'ensureIndex' && isDocuments(name)) {
            watch.ensured.push((args[0] as { name: string }).name)
          }
          for (const waiter of waiting.filter((w) => w.method === property && w.test(name))) {
            waiting.splice(waiting.indexOf(waiter), 1)
            waiter.go()
          }
          return Reflect.apply(value, target, args) as unknown
        }
      },
    })
  }
  return { ...store, collection }
}

async function tenantWorld(t: Teardown): Promise<World & { watch: Watch }> {
  const waiting: Waiter[] = []
  const watch: Watch = {
    ensured: [],
    started: (test, method) => new Promise((resolve) => waiting.push({ test, method, go: resolve })),
  }
  const built = await world(t, { QUIRE_MAX_FILE_SIZE: String(4 * 1024) }, (real) => ({
    ...real,
    store: watched(real.store, watch, waiting),
  }))
  return Object.assign(built, { watch })
}

const DEFINITIONS = '/api/v2/document-definitions'
const documentsOf = (ddId: string) => `${DEFINITIONS}/${ddId}/documents`

/**
 * `/health` while `hostile` is in the store: it is sent once the hostile request's read has begun, and must
 * answer before the hostile request does (an engine that held the event loop would answer it first).
 */
async function healthWhile(
  w: World & { watch: Watch },
  collection: (name: string) => boolean,
  method: 'find' | 'findText',
  hostile: () => Promise<LightMyRequestResponse>,
): Promise<{ response: LightMyRequestResponse; health: number; order: string[] }> {
  const order: string[] = []
  const reading = w.watch.started(collection, method)
  const pending = hostile().then((response) => {
    order.push('hostile')
    return response
  })
  await reading
  const health = await w.server.inject({ method: 'GET', url: '/health' })
  order.push('health')
  return { response: await pending, health: health.statusCode, order }
}

t.test('catastrophic $regex: linear on the documents list and the users list, /health answers meanwhile', async (t) => {
  const w = await tenantWorld(t)
  for (let i = 0; i < 200; i++) await w.newDocument({ title: `${LONG}${i}!` })
  const filter = encodeURIComponent(JSON.stringify({ title: { $regex: CATASTROPHIC } }))
  const list = await healthWhile(w, isDocuments, 'findText', () =>
    w.call('member', { method: 'GET', url: `${documentsOf(w.definition._id)}?query=${filter}` }),
  )
  t.equal(list.health, 200, '/health answers')
  t.same(list.order, ['health', 'hostile'], '/health answered while the documents list was in flight')
  t.equal(list.response.statusCode, 200)
  t.same(list.response.json().data, [], 'no title matches: each ends with a digit and "!"')

  // Members with a long field, written directly (the API bounds what a user record holds).
  for (let i = 0; i < 200; i++) {
    const { _id } = await createUser(w.resources.store, { environments: { [ENV]: {} } })
    await USERS_COLLECTIONS.users.in(w.resources.store).updateOne({ _id }, { $set: { about: `${LONG}${i}!` } })
  }
  const users = encodeURIComponent(JSON.stringify({ about: { $regex: CATASTROPHIC } }))
  const listed = await healthWhile(
    w,
    (name) => name === USERS_COLLECTIONS.users.name,
    'find',
    () => w.call('administrator', { method: 'GET', url: `/api/v2/users?query=${users}` }),
  )
  t.equal(listed.health, 200, '/health answers')
  t.same(listed.order, ['health', 'hostile'], '/health answered while the users list was in flight')
  t.equal(listed.response.statusCode, 200)
  t.same(listed.response.json().data, [])

  for (const [url, name, field] of [
    [`${documentsOf(w.definition._id)}?query=`, 'documents list', 'title'],
    ['/api/v2/users?query=', 'users list', 'username'],
  ] as const) {
    for (const [label, condition] of [
      ['a backreference RE2 cannot run', { $regex: '(a)\\1' }],
      ['a lookahead RE2 cannot run', { $regex: 'a(?=b)' }],
      ['an unknown $options flag', { $regex: 'a', $options: 'g' }],
    ] as const) {
      const response = await w.call('administrator', {
        method: 'GET',
        url: url + encodeURIComponent(JSON.stringify({ [field]: condition })),
      })
      t.equal(response.statusCode, 400, `${name}: ${label}`)
      t.match(response.json(), { ...ENVELOPE, error: 'invalid_query' }, `${name}: ${label}`)
    }
  }
})

t.test('parallel arrays: 400 parallel_arrays on write and on an index declared over such documents', async (t) => {
  const w = await tenantWorld(t)
  const created = await w.setup(
    { method: 'POST', url: DEFINITIONS, payload: { name: 'grid', indexes: [{ fields: { rows: 1, cols: 1 } }] } },
    201,
  )
  const ddId = (created.data as { _id: string })._id
  const grid = { rows: Array.from({ length: 80 }, (_, i) => i), cols: Array.from({ length: 80 }, (_, i) => i) }
  const refused = await w.call('member', { method: 'POST', url: `${documentsOf(ddId)}/new`, payload: grid })
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { ...ENVELOPE, error: 'parallel_arrays' })
  t.equal(
    await documentsCollection({ _id: ddId, _environmentId: ENV }).in(w.resources.store).count({}),
    0,
    'nothing stored',
  )

  // Such a document already in another definition: declaring the index is refused, the definition unchanged.
  const documentId = await w.newDocument({ title: 'x', ...grid })
  const declared = await w.call('administrator', {
    method: 'PATCH',
    url: `${DEFINITIONS}/${w.definition._id}`,
    payload: { indexes: [{ fields: { rows: 1, cols: 1 } }] },
  })
  t.equal(declared.statusCode, 400)
  t.match(declared.json(), { ...ENVELOPE, error: 'parallel_arrays' })
  const definition = await w.call('member', { method: 'GET', url: `${DEFINITIONS}/${w.definition._id}` })
  t.equal(definition.json().data.indexes, undefined)
  t.ok(documentId)
})

t.test('a refused definition creation builds nothing; a failed update keeps a unique index enforced', async (t) => {
  const w = await tenantWorld(t)
  w.watch.ensured.length = 0
  const indexes = [{ fields: { code: 1 }, unique: true }]
  const taken = await w.call('administrator', {
    method: 'POST',
    url: DEFINITIONS,
    payload: { name: w.definition.name, indexes },
  })
  t.equal(taken.statusCode, 409)
  t.match(taken.json(), { ...ENVELOPE, error: 'duplicate_name' })
  t.same(w.watch.ensured, [], 'no collection index was built for the refused request')

  const orders = await w.setup({ method: 'POST', url: DEFINITIONS, payload: { name: 'orders', indexes } }, 201)
  const ordersId = (orders.data as { _id: string })._id
  t.match(orders.data, { indexes: [{ fields: { code: 1 }, unique: true, state: 'ready' }] }, 'state is given')
  const failed = await w.call('administrator', {
    method: 'PUT',
    url: `${DEFINITIONS}/${ordersId}`,
    payload: { name: w.definition.name, indexes: [] },
  })
  t.equal(failed.statusCode, 409)
  t.match(failed.json(), { ...ENVELOPE, error: 'duplicate_name' })
  await w.call('member', { method: 'POST', url: `${documentsOf(ordersId)}/new`, payload: { code: 'A' } })
  const twice = await w.call('member', { method: 'POST', url: `${documentsOf(ordersId)}/new`, payload: { code: 'A' } })
  t.equal(twice.statusCode, 409, 'the unique index is still enforced')
  t.match(twice.json(), { ...ENVELOPE, error: 'duplicate_key' })
  t.equal(await documentsCollection({ _id: ordersId, _environmentId: ENV }).in(w.resources.store).count({}), 1)
})

t.test('list parameters that name nothing are 400, never 500', async (t) => {
  const w = await tenantWorld(t)
  for (const url of [
    `${DEFINITIONS}?after=not-an-id`,
    `${DEFINITIONS}?after=${'0'.repeat(24)}`,
    // Under the `_id` order any `after` is a place to start from (200); a cursor that is not one names nothing.
    `${documentsOf(w.definition._id)}?after=~not-a-cursor`,
    `${documentsOf(w.definition._id)}?skip=-1`,
    `${documentsOf(w.definition._id)}?sort=nope`,
  ]) {
    const response = await w.call('administrator', { method: 'GET', url })
    t.equal(response.statusCode, 400, url)
    t.match(response.json(), { ...ENVELOPE, error: /^(invalid_query|validation_error)$/ }, url)
  }
})

t.test('copyAttachments shares the stored file; downloads and metadata come from the store', async (t) => {
  const w = await tenantWorld(t)
  const source = await w.newAttachment()
  const target = await w.newDocument()
  const documents = documentsOf(w.definition._id)
  const copied = await w.call('member', {
    method: 'POST',
    url: '/api/v2/documents/copyAttachments',
    payload: [
      {
        source: { ddName: w.definition.name, _id: source.documentId, valuePath: 'files' },
        target: { ddName: w.definition.name, _id: target, valuePath: 'files' },
      },
    ],
  })
  t.equal(copied.statusCode, 200)
  const [copy] = (copied.json().data[0] as { attachments: { _id: string }[] }).attachments
  const copyUrl = `${documents}/${target}/attachments/${copy?._id}`
  const sourceKey = `${ENV}/${w.definition._id}/${source.documentId}/${source.attachmentId}`

  // Forged metadata through PUT and PATCH: the stored values stay, downloads read the store.
  const read = await w.call('member', { method: 'GET', url: `${documents}/${target}` })
  const [attachment] = read.json().files as Record<string, unknown>[]
  const forged = { ...attachment, _size: 1, _contentType: 'text/html', _sha256: 'x', store: 'image' }
  for (const method of ['PUT', 'PATCH'] as const) {
    const written = await w.call('member', { method, url: `${documents}/${target}`, payload: { files: [forged] } })
    t.equal(written.statusCode, 200, method)
    t.same(written.json().data.files, [attachment], `${method} keeps the stored metadata`)
  }

  await w.call('member', { method: 'DELETE', url: `${documents}/${source.documentId}` })
  const download = await w.call('member', { method: 'GET', url: copyUrl })
  t.equal(download.statusCode, 200, 'the copy outlives its source')
  t.equal(download.body, 'hello world')
  t.equal(download.headers['content-length'], '11')
  t.equal(download.headers['content-type'], 'text/plain')
  t.ok(await w.resources.files.exists(sourceKey), 'the shared file stays')

  const removed = await w.call('member', { method: 'DELETE', url: copyUrl })
  t.equal(removed.statusCode, 200)
  t.notOk(await w.resources.files.exists(sourceKey), 'the last reference took the file with it')
  const gone = await w.call('member', { method: 'GET', url: copyUrl })
  t.equal(gone.statusCode, 404)
  t.match(gone.json(), { ...ENVELOPE, error: 'attachment_not_found' })
})

t.test('over a real socket, an upload refused before its body is read answers a readable 400', async (t) => {
  const w = await tenantWorld(t)
  const address = await w.server.listen({ port: 0, host: '127.0.0.1' })
  const documentId = await w.newDocument({ title: 'not a list' })
  const body = multipart([{ filename: 'a.bin', content: Buffer.alloc(512 * 1024, 1) }])
  for (const [valuePath, id, status, error] of [
    ['title.0', documentId, 400, 'invalid_value_path'],
    ['files', 'nope', 404, 'document_not_found'],
  ] as const) {
    const response = await fetch(
      `${address}${documentsOf(w.definition._id)}/${id}/attachments?valuePath=${valuePath}`,
      {
        method: 'POST',
        headers: {
          ...body.headers,
          'environment-id': ENV,
          authorization: `Bearer ${w.tokens.member ?? ''}`,
        },
        body: body.payload,
      },
    )
    t.equal(response.status, status, valuePath)
    t.match(await response.json(), { ...ENVELOPE, error }, valuePath)
  }
})

t.test('a list past the store’s memory budget is 400 invalid_query naming the index it lacks', async (t) => {
  const w = await tenantWorld(t)
  const documents = documentsCollection({ _id: w.definition._id, _environmentId: ENV }).in(w.resources.store)
  const big = 'x'.repeat(1024 * 1024)
  const now = new Date().toISOString()
  // 40 MiB of documents, written directly (past the default 32 MiB budget of the embedded store).
  for (let i = 0; i < 40; i++) {
    await documents.insertOne({
      _id: `big-${i}`,
      _createdOn: now,
      _createdByUserId: w.userIds.member,
      _lastModifiedOn: now,
      _lastModifiedByUserId: w.userIds.member,
      _documentDefinitionId: w.definition._id,
      _environmentId: ENV,
      status: 'ready',
      accessGroups: [],
      title: `${i}`,
      body: big,
      _hash: `h${i}`,
    })
  }
  const sorted = await w.call('administrator', {
    method: 'GET',
    url: `${documentsOf(w.definition._id)}?sort=${encodeURIComponent('{"title":1}')}`,
  })
  t.equal(sorted.statusCode, 400)
  t.match(sorted.json(), { ...ENVELOPE, error: 'invalid_query', description: /needs an index on \{ title: 1 \}/ })
  const health = await w.server.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 200)
})
