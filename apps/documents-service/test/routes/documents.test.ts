import t from 'tap'
import { QueryTooLargeError } from '@quire/records'
import { build, createDefinition, createDocument, documentsOf, intercept, storedDocuments } from '../helper.js'

t.test('the spec Documents table: list, get, create, put, patch, delete', async (t) => {
  const { server, as } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')

  const created = await server.inject({
    method: 'POST',
    url: `${core}/new`,
    headers: as.member,
    payload: { title: 'first', location: { longitude: 1.5, latitude: 2.5, formattedAddress: 'x' }, tags: [] },
  })
  t.equal(created.statusCode, 201)
  const document = created.json().data
  t.equal(created.json().status, 'ok')
  t.match(document, {
    _id: /^[0-9a-f]{24}$/,
    title: 'first',
    status: 'ready',
    accessGroups: [],
    tags: [],
    location: { longitude: 1.5, latitude: 2.5, formattedAddress: 'x' },
    _documentDefinitionId: definition._id,
    _environmentId: 'env_a',
    _permissions: { fullPermissions: false, userActionPermissions: ['read', 'create', 'update', 'delete'] },
  })
  t.match(document._createdOn, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.equal(document._lastModifiedOn, document._createdOn)
  t.equal(document._createdByUserId, document._lastModifiedByUserId)
  t.equal(created.headers.etag, `"${document._hash}"`)

  const empty = await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member })
  t.equal(empty.statusCode, 201, 'the body is optional')
  t.equal(empty.json().data.status, 'ready')

  const byId = await server.inject({ method: 'GET', url: `${core}/${document._id}`, headers: as.member })
  t.equal(byId.statusCode, 200)
  t.same(byId.json(), document, 'GET one answers the bare document')
  t.equal(byId.headers.etag, `"${document._hash}"`)
  const byDefinitionId = await server.inject({
    method: 'GET',
    url: `${documentsOf(definition._id)}/${document._id}`,
    headers: as.member,
  })
  t.same(byDefinitionId.json(), document, '{ddId} may be the definition id too')

  const list = await server.inject({ method: 'GET', url: core, headers: as.member })
  t.equal(list.statusCode, 200)
  t.same(
    list.json().data.map((item: { _id: string }) => item._id),
    [document._id, empty.json().data._id],
  )
  t.same(list.json().pagination, { hasPrevious: false, hasNext: false, type: 'cursor' })

  const replaced = await server.inject({
    method: 'PUT',
    url: `${core}/${document._id}`,
    headers: as.admin,
    payload: { title: 'replaced', externalId: 'ext-1' },
  })
  t.equal(replaced.statusCode, 200)
  const afterPut = replaced.json().data
  t.equal(afterPut.title, 'replaced')
  t.notOk('location' in afterPut, 'PUT replaces every user field')
  t.equal(afterPut._createdOn, document._createdOn)
  t.not(afterPut._hash, document._hash, 'every write changes the hash')
  t.equal(replaced.headers.etag, `"${afterPut._hash}"`)
  t.equal(afterPut._permissions.fullPermissions, true, 'administrators hold full permissions')

  const byExternalId = await server.inject({ method: 'GET', url: `${core}/ext-1`, headers: as.member })
  t.equal(byExternalId.statusCode, 200)
  t.equal(byExternalId.json()._id, document._id, '{id} may be the external id')

  const patched = await server.inject({
    method: 'PATCH',
    url: `${core}/ext-1`,
    headers: as.member,
    payload: { count: 3, title: null, status: 'archived', accessGroups: null },
  })
  t.equal(patched.statusCode, 200)
  t.match(patched.json().data, { count: 3, status: 'archived', externalId: 'ext-1' })
  t.notOk('title' in patched.json().data, 'null removes a field')
  const reset = await server.inject({
    method: 'PATCH',
    url: `${core}/ext-1`,
    headers: as.member,
    payload: { status: null },
  })
  t.match(
    reset.json().data,
    { status: 'ready', accessGroups: [] },
    'null resets status and accessGroups to their defaults',
  )

  const same = await server.inject({ method: 'PATCH', url: `${core}/ext-1`, headers: as.member, payload: { count: 3 } })
  t.not(same.json().data._hash, patched.json().data._hash, 'the hash changes even when the content does not')

  const deleted = await server.inject({ method: 'DELETE', url: `${core}/${document._id}`, headers: as.member })
  t.equal(deleted.statusCode, 200)
  t.same(deleted.json(), { status: 'ok', data: { _id: document._id, deleted: true } })
  const gone = await server.inject({ method: 'GET', url: `${core}/${document._id}`, headers: as.member })
  t.equal(gone.statusCode, 404)
  t.equal(gone.json().error, 'document_not_found')
  const again = await server.inject({ method: 'DELETE', url: `${core}/${document._id}`, headers: as.member })
  t.equal(again.statusCode, 404)
})

t.test('errors: unknown definition, unknown document, auth, duplicates, bad bodies', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')

  for (const [method, url] of [
    ['GET', documentsOf('nope')],
    ['GET', `${documentsOf('nope')}/x`],
    ['POST', `${documentsOf('nope')}/new`],
    ['PATCH', `${documentsOf('nope')}/x`],
    ['PUT', `${documentsOf('nope')}/x`],
    ['DELETE', `${documentsOf('nope')}/x`],
  ] as const) {
    const response = await server.inject({
      method,
      url,
      headers: as.member,
      payload: method === 'GET' || method === 'DELETE' ? undefined : {},
    })
    t.equal(response.statusCode, 404, `${method} ${url}`)
    t.same(response.json(), {
      status: 'error',
      error: 'document_definition_not_found_for_id_or_name',
      description: 'Document definition not found for id or name "nope" in environment "env_a"',
      userDescription: 'There is no document definition "nope" in environment "env_a"',
      message: 'Document definition not found for id or name "nope" in environment "env_a"',
    })
  }

  for (const [method, url] of [
    ['GET', `${core}/missing`],
    ['PUT', `${core}/missing`],
    ['PATCH', `${core}/missing`],
    ['DELETE', `${core}/missing`],
  ] as const) {
    const response = await server.inject({
      method,
      url,
      headers: as.member,
      payload: method === 'PUT' || method === 'PATCH' ? {} : undefined,
    })
    t.equal(response.statusCode, 404, `${method} missing document`)
    t.equal(response.json().error, 'document_not_found')
  }

  const noEnvironment = await server.inject({
    method: 'GET',
    url: core,
    headers: { authorization: as.member.authorization ?? '' },
  })
  t.equal(noEnvironment.statusCode, 400)
  t.equal(noEnvironment.json().error, 'environment_id_missing')
  const noToken = await server.inject({ method: 'GET', url: core, headers: { 'environment-id': 'env_a' } })
  t.equal(noToken.statusCode, 401)
  t.equal(noToken.json().error, 'unauthorized')
  const outsider = await server.inject({ method: 'GET', url: core, headers: as.outsider })
  t.equal(outsider.statusCode, 403)
  t.equal(outsider.json().error, 'forbidden')

  const first = await server.inject({
    method: 'POST',
    url: `${core}/new`,
    headers: as.member,
    payload: { externalId: 'E1' },
  })
  t.equal(first.statusCode, 201)
  const duplicate = await server.inject({
    method: 'POST',
    url: `${core}/new`,
    headers: as.member,
    payload: { externalId: 'E1' },
  })
  t.equal(duplicate.statusCode, 409)
  t.equal(duplicate.json().error, 'duplicate_external_id')
  const second = await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: {} })
  const patchDuplicate = await server.inject({
    method: 'PATCH',
    url: `${core}/${second.json().data._id}`,
    headers: as.member,
    payload: { externalId: 'E1' },
  })
  t.equal(patchDuplicate.statusCode, 409)
  t.equal(patchDuplicate.json().error, 'duplicate_external_id')
  const otherDefinition = await createDefinition(server, as.admin, { name: 'other' })
  const elsewhere = await server.inject({
    method: 'POST',
    url: `${documentsOf(otherDefinition._id)}/new`,
    headers: as.member,
    payload: { externalId: 'E1' },
  })
  t.equal(elsewhere.statusCode, 201, 'externalId is unique per definition only')

  for (const payload of [{ status: { a: 1 } }, { accessGroups: { a: 1 } }, { externalId: '' }]) {
    const response = await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload })
    t.equal(response.statusCode, 400, JSON.stringify(payload))
    t.equal(response.json().error, 'validation_error')
    t.match(response.json().description, Object.keys(payload)[0] as string, 'names the field')
  }
  for (const payload of [
    '{"constructor":{"prototype":{"x":1}}}',
    '{"__proto__":{"x":1}}',
    '{"a":{"$gt":1}}',
    '{"a.b":1}',
    '{"nested":{"prototype":1}}',
  ]) {
    const response = await server.inject({
      method: 'POST',
      url: `${core}/new`,
      headers: { ...as.member, 'content-type': 'application/json' },
      payload,
    })
    t.equal(response.statusCode, 400, payload)
    t.equal(response.json().error, 'validation_error')
  }
  t.equal(({} as Record<string, unknown>).x, undefined, 'nothing polluted')
})

t.test('a client cannot set system fields', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const forged = {
    _id: 'mine',
    _createdOn: '2000-01-01T00:00:00.000Z',
    _createdByUserId: 'someone',
    _lastModifiedOn: '2000-01-01T00:00:00.000Z',
    _lastModifiedByUserId: 'someone',
    _documentDefinitionId: 'other',
    _environmentId: 'env_b',
    _hash: 'forged',
    _permissions: { fullPermissions: true, userActionPermissions: ['everything'] },
    title: 'kept',
  }
  const created = await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: forged })
  t.equal(created.statusCode, 201)
  const document = created.json().data
  for (const key of Object.keys(forged).filter((key) => key !== 'title')) {
    t.not(document[key], forged[key as keyof typeof forged], `${key} is the server's`)
  }
  t.equal(document.title, 'kept')
  t.equal(document._environmentId, 'env_a')
  t.equal(document._documentDefinitionId, definition._id)

  for (const method of ['PUT', 'PATCH'] as const) {
    const written = await server.inject({ method, url: `${core}/${document._id}`, headers: as.member, payload: forged })
    t.equal(written.statusCode, 200)
    t.equal(written.json().data._id, document._id, `${method} keeps _id`)
    t.equal(written.json().data._createdOn, document._createdOn, `${method} keeps _createdOn`)
    t.equal(written.json().data._environmentId, 'env_a')
    t.not(written.json().data._hash, 'forged')
  }
  const stored = await storedDocuments(resources.store, definition._id).findOne({ _id: document._id })
  t.notOk(stored && '_permissions' in stored, '_permissions is never stored')
  t.equal(await storedDocuments(resources.store, definition._id).count({ _id: 'mine' }), 0)
})

t.test('GET answers a stored document in any field order, its own `_hash` as the ETag', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const created = (
    await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: { title: 'x' } })
  ).json().data
  // As another writer may store it: `_hash` first, and a nested `_hash` ending the text.
  const { _id, _hash, _permissions, ...rest } = created
  const stored = { _id: 'reordered', _hash, ...rest, externalId: 'reordered-ext', decoy: { _hash: 'D'.repeat(32) } }
  await storedDocuments(resources.store, definition._id).insertOne(stored)

  for (const id of ['reordered', 'reordered-ext']) {
    const answer = await server.inject({ method: 'GET', url: `${core}/${id}`, headers: as.member })
    t.equal(answer.statusCode, 200)
    t.equal(answer.headers.etag, `"${_hash}"`, `by ${id}: the document's own _hash, not the nested one`)
    t.same(answer.json(), { ...stored, _permissions })
    t.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
  }
})

t.test('If-Match: 412 on a stale version; concurrent PATCHes let exactly one win', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const created = (
    await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: { n: 0 } })
  ).json().data
  const url = `${core}/${created._id}`

  const racers = await Promise.all(
    Array.from({ length: 8 }, (_, n) =>
      server.inject({
        method: 'PATCH',
        url,
        headers: { ...as.member, 'if-match': `"${created._hash}"` },
        payload: { n: n + 1 },
      }),
    ),
  )
  const statuses = racers.map((response) => response.statusCode)
  t.equal(statuses.filter((status) => status === 200).length, 1, 'exactly one wins')
  t.equal(statuses.filter((status) => status === 412).length, 7, 'the others are refused')
  const loser = racers.find((response) => response.statusCode === 412)
  t.equal(loser?.json().error, 'precondition_failed')
  const winner = racers.find((response) => response.statusCode === 200)?.json().data
  const current = await server.inject({ method: 'GET', url, headers: as.member })
  t.equal(current.json().n, winner.n, 'the winner is what is stored')

  const stalePut = await server.inject({
    method: 'PUT',
    url,
    headers: { ...as.member, 'if-match': created._hash },
    payload: {},
  })
  t.equal(stalePut.statusCode, 412)
  const staleDelete = await server.inject({
    method: 'DELETE',
    url,
    headers: { ...as.member, 'if-match': `"${created._hash}"` },
  })
  t.equal(staleDelete.statusCode, 412)
  t.equal(staleDelete.json().error, 'precondition_failed')
  const freshPut = await server.inject({
    method: 'PUT',
    url,
    headers: { ...as.member, 'if-match': current.headers.etag },
    payload: { n: 100 },
  })
  t.equal(freshPut.statusCode, 200)
  const freshDelete = await server.inject({
    method: 'DELETE',
    url,
    headers: { ...as.member, 'if-match': freshPut.headers.etag },
  })
  t.equal(freshDelete.statusCode, 200)

  // Without If-Match, concurrent merges all land: none is lost.
  const merged = (await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member })).json().data
  await Promise.all(
    Array.from({ length: 6 }, (_, n) =>
      server.inject({ method: 'PATCH', url: `${core}/${merged._id}`, headers: as.member, payload: { [`f${n}`]: n } }),
    ),
  )
  const all = (await server.inject({ method: 'GET', url: `${core}/${merged._id}`, headers: as.member })).json()
  t.same(
    [0, 1, 2, 3, 4, 5].map((n) => all[`f${n}`]),
    [0, 1, 2, 3, 4, 5],
  )
})

t.test('Idempotency-Key: a retry returns the first result and creates nothing', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const send = (payload: object, key = 'key-1', headers = as.member) =>
    server.inject({ method: 'POST', url: `${core}/new`, headers: { ...headers, 'idempotency-key': key }, payload })

  const first = await send({ title: 'a' })
  t.equal(first.statusCode, 201)
  const retry = await send({ title: 'a' })
  t.equal(retry.statusCode, 201)
  t.same(retry.json(), first.json(), 'the first result')
  t.equal(retry.headers['idempotent-replayed'], 'true')
  const concurrent = await Promise.all([
    send({ title: 'b' }, 'key-2'),
    send({ title: 'b' }, 'key-2'),
    send({ title: 'b' }, 'key-2'),
  ])
  t.equal(
    new Set(concurrent.map((response) => response.json().data._id)).size,
    1,
    'concurrent retries create one document',
  )

  const otherBody = await send({ title: 'different' })
  t.equal(otherBody.statusCode, 422)
  t.equal(otherBody.json().error, 'validation_error')
  t.match(otherBody.json().description, /idempotency-key/)

  const otherUser = await send({ title: 'a' }, 'key-1', as.admin)
  t.not(otherUser.json().data._id, first.json().data._id, 'keys are per caller')

  const list = await server.inject({ method: 'GET', url: core, headers: as.admin })
  t.equal(list.json().data.length, 3)
})

t.test('accessGroups hide documents from non-members', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const secret = (
    await server.inject({
      method: 'POST',
      url: `${core}/new`,
      headers: as.admin,
      payload: { title: 'secret', externalId: 'S', accessGroups: ['sales'] },
    })
  ).json().data
  const open = (
    await server.inject({ method: 'POST', url: `${core}/new`, headers: as.admin, payload: { title: 'open' } })
  ).json().data

  const ids = async (headers: Record<string, string>, query = '') =>
    (await server.inject({ method: 'GET', url: `${core}${query}`, headers }))
      .json()
      .data.map((item: { _id: string }) => item._id)
  t.same(await ids(as.admin), [secret._id, open._id], 'administrators see everything')
  t.same(await ids(as.sales), [secret._id, open._id], 'members of the group see it')
  t.same(await ids(as.member), [open._id], 'others do not')
  t.same(await ids(as.member, `?query=${encodeURIComponent('{"title":"secret"}')}`), [], 'not even by filter')
  const counted = await server.inject({ method: 'GET', url: `${core}?count=true&limit=1`, headers: as.member })
  t.equal(counted.json().pagination.total, 1, 'nor in counts')
  t.equal(counted.json().pagination.hasNext, false, 'the page is filled with visible documents only')

  for (const id of [secret._id, 'S']) {
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
      const response = await server.inject({
        method,
        url: `${core}/${id}`,
        headers: as.member,
        payload: method === 'PATCH' || method === 'PUT' ? {} : undefined,
      })
      t.equal(response.statusCode, 404, `${method} ${id}`)
    }
  }
  const afterHidden = await server.inject({
    method: 'GET',
    url: `${core}?after=${secret._id}&sort=${encodeURIComponent('{"title":1}')}`,
    headers: as.member,
  })
  t.equal(afterHidden.statusCode, 400, 'a hidden document cannot anchor a page')
  t.equal((await server.inject({ method: 'GET', url: `${core}/S`, headers: as.sales })).statusCode, 200)
})

t.test(
  'a stored document without access groups (missing or null, written by other means) is visible to members',
  async (t) => {
    const { server, as, resources } = await build(t)
    const definition = await createDefinition(server, as.admin, { name: 'orders' })
    const core = documentsOf('orders')
    const template = (
      await server.inject({
        method: 'POST',
        url: `${core}/new`,
        headers: as.admin,
        payload: { title: 'x', accessGroups: ['sales'] },
      })
    ).json().data
    const { _permissions, accessGroups, ...stored } = template
    const documents = storedDocuments(resources.store, definition._id)
    await documents.insertOne({ ...stored, _id: 'no-groups', externalId: 'no-groups-ext' })
    await documents.insertOne({ ...stored, _id: 'null-groups', accessGroups: null })

    for (const headers of [as.member, as.sales]) {
      for (const id of ['no-groups', 'no-groups-ext', 'null-groups']) {
        t.equal((await server.inject({ method: 'GET', url: `${core}/${id}`, headers })).statusCode, 200, `GET ${id}`)
      }
      t.equal(
        (await server.inject({ method: 'PATCH', url: `${core}/no-groups`, headers, payload: { n: 1 } })).statusCode,
        200,
        'PATCH finds it too',
      )
      const listed = (await server.inject({ method: 'GET', url: core, headers }))
        .json()
        .data.map((item: { _id: string }) => item._id)
      t.same(
        listed.filter((id: string) => id !== template._id),
        ['no-groups', 'null-groups'],
        'listed',
      )
    }
    t.equal(
      (await server.inject({ method: 'GET', url: `${core}/${template._id}`, headers: as.member })).statusCode,
      404,
      'the grouped one stays hidden',
    )
  },
)

t.test('writes that a declared index cannot hold (arrays in two of its fields) are 400 parallel_arrays', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, {
    name: 'orders',
    indexes: [{ fields: { tags: 1, sizes: 1 } }],
  })
  const core = documentsOf('orders')
  const both = { tags: ['a', 'b'], sizes: [1, 2] }
  const created = await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: both })
  t.equal(created.statusCode, 400)
  t.match(created.json(), { status: 'error', error: 'parallel_arrays', description: /tags|sizes/ })
  const keyed = await server.inject({
    method: 'POST',
    url: `${core}/new`,
    headers: { ...as.member, 'idempotency-key': 'k1' },
    payload: both,
  })
  t.equal(keyed.statusCode, 400)
  t.equal(keyed.json().error, 'parallel_arrays')
  t.equal(await storedDocuments(resources.store, definition._id).count({}), 0, 'nothing stored')

  const one = await createDocument(server, as.member, 'orders', { tags: ['a', 'b'], sizes: 1 })
  for (const method of ['PUT', 'PATCH'] as const) {
    const response = await server.inject({ method, url: `${core}/${one._id}`, headers: as.member, payload: both })
    t.equal(response.statusCode, 400, method)
    t.equal(response.json().error, 'parallel_arrays', method)
  }
  const stored = await storedDocuments(resources.store, definition._id).findOne({ _id: one._id })
  t.same(stored?.sizes, 1, 'the document is unchanged')
  t.equal(stored?._hash, one._hash)
})

t.test('a list over the store’s memory budget is 400 invalid_query naming the index it lacks', async (t) => {
  const { server, as, resources } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const tooLarge = new QueryTooLargeError('sort on price needs an index on { price: 1 }')
  intercept(
    resources.store,
    (name) => name.startsWith('documents.'),
    () => ({
      findText: async () => Promise.reject(tooLarge),
      find: async () => Promise.reject(tooLarge),
      count: async () => Promise.reject(tooLarge),
    }),
  )
  for (const query of ['sort={"price":1}', 'fields={"price":1}', 'count=true']) {
    const response = await server.inject({ method: 'GET', url: `${documentsOf('orders')}?${query}`, headers: as.admin })
    t.equal(response.statusCode, 400, query)
    t.match(response.json(), { status: 'error', error: 'invalid_query', description: /index on \{ price: 1 \}/ })
  }
})
