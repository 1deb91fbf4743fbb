import t from 'tap'
import { build, createDefinition, createDocument, documentsOf, storedDocuments } from '../helper.js'

t.test('bulk: create, update, patch and delete in one call, all or nothing, a result per operation', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, {
    name: 'orders',
    fields: { title: { type: 'string', required: true } },
  })
  const documents = storedDocuments(resources.store, definition._id)
  const url = `${documentsOf('orders')}/bulk`
  const bulk = (payload: Record<string, unknown>, headers: Record<string, string> = as.sales) =>
    server.inject({ method: 'POST', url, headers, payload })
  const a = await createDocument(server, as.sales, 'orders', { title: 'a', externalId: 'ext-a' })
  const b = await createDocument(server, as.sales, 'orders', { title: 'b', n: 1 })
  const c = await createDocument(server, as.sales, 'orders', { title: 'c' })

  const done = await bulk({
    operations: [
      { op: 'create', body: { title: 'new', accessGroups: ['sales'] } },
      { op: 'update', id: 'ext-a', body: { title: 'a2', externalId: 'ext-a' }, ifMatch: `"${a._hash}"` },
      { op: 'patch', id: b._id, body: { n: null, extra: true } },
      { op: 'delete', id: c._id },
    ],
  })
  t.equal(done.statusCode, 200, done.body)
  const results = done.json().data
  t.match(results, [
    { op: 'create', _id: /^[0-9a-f]{24}$/, _hash: String },
    { op: 'update', _id: a._id, _hash: String },
    { op: 'patch', _id: b._id, _hash: String },
    { op: 'delete', _id: c._id, deleted: true },
  ])
  t.match(await documents.findOne({ _id: results[0]._id }), {
    title: 'new',
    accessGroups: ['sales'],
    _hash: results[0]._hash,
  })
  t.same((await documents.findOne({ _id: a._id }))?.title, 'a2')
  const patched = await documents.findOne({ _id: b._id })
  t.notOk(patched && 'n' in patched)
  t.equal(patched?.extra, true)
  t.equal(await documents.findOne({ _id: c._id }), null)

  const before = await documents.count({})
  const refusals: [unknown, number, string, RegExp][] = [
    [
      [
        { op: 'create', body: { title: 'x' } },
        { op: 'create', body: {} },
      ],
      400,
      'validation_error',
      /^operations\/1: /,
    ],
    [
      [
        { op: 'create', body: { title: 'x' } },
        { op: 'delete', id: 'nope' },
      ],
      404,
      'document_not_found',
      /^operations\/1: /,
    ],
    [
      [{ op: 'update', id: b._id, body: { title: 'x' }, ifMatch: '"stale"' }],
      412,
      'precondition_failed',
      /^operations\/0: /,
    ],
    [[{ op: 'create', body: { title: 'x', accessGroups: ['hr'] } }], 403, 'forbidden', /^operations\/0: /],
    [[{ op: 'create', body: { title: 'x', externalId: 'ext-a' } }], 409, 'duplicate_external_id', /ext-a/],
    [
      [
        { op: 'create', body: { title: 'x', externalId: 'z' } },
        { op: 'create', body: { title: 'y', externalId: 'z' } },
      ],
      409,
      'duplicate_external_id',
      /"z"/,
    ],
    [[{ op: 'frobnicate' }], 400, 'validation_error', /body\/operations/],
    [[], 400, 'validation_error', /body\/operations/],
  ]
  for (const [operations, status, code, description] of refusals) {
    const refused = await bulk({ operations })
    t.equal(refused.statusCode, status, JSON.stringify(operations))
    t.equal(refused.json().error, code)
    t.match(refused.json().description, description)
  }
  t.equal(await documents.count({}), before, 'a refused call writes nothing')
  const tooMany = await bulk({ operations: Array.from({ length: 1001 }, () => ({ op: 'create' })) })
  t.equal(tooMany.statusCode, 400, 'at most 1000 operations')
})

t.test('bulk: 1,000 creates in one call past 1 MiB, Idempotency-Key replays the results', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'items' })
  const url = `${documentsOf('items')}/bulk`
  const padding = 'x'.repeat(1200)
  const operations = Array.from({ length: 1000 }, (_, i) => ({ op: 'create', body: { i, padding } }))
  const headers = { ...as.member, 'idempotency-key': 'import-1' }
  const first = await server.inject({ method: 'POST', url, headers, payload: { operations } })
  t.equal(first.statusCode, 200, first.body.slice(0, 200))
  t.equal(first.json().data.length, 1000)
  t.equal(await storedDocuments(resources.store, definition._id).count({}), 1000)
  const replay = await server.inject({ method: 'POST', url, headers, payload: { operations } })
  t.equal(replay.headers['idempotent-replayed'], 'true')
  t.same(replay.json().data, first.json().data)
  t.equal(await storedDocuments(resources.store, definition._id).count({}), 1000, 'nothing created twice')
  const other = await server.inject({ method: 'POST', url, headers, payload: { operations: operations.slice(1) } })
  t.equal(other.statusCode, 422)
  const single = await server.inject({
    method: 'POST',
    url: `${documentsOf('items')}/new`,
    headers: as.member,
    payload: { padding: 'x'.repeat(2 * 1024 * 1024) },
  })
  t.equal(single.statusCode, 413, 'other routes keep the server limit')
})

t.test('bulk: visibility as single writes; deleting removes the attachments as DELETE does', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const hidden = await createDocument(server, as.admin, 'orders', { accessGroups: ['hr'] })
  const refused = await server.inject({
    method: 'POST',
    url: `${documentsOf('orders')}/bulk`,
    headers: as.sales,
    payload: { operations: [{ op: 'delete', id: hidden._id }] },
  })
  t.equal(refused.statusCode, 404, 'a hidden document is not found')
})
