import t from 'tap'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import {
  build,
  createDefinition,
  createDocument,
  DEFINITIONS,
  documentsOf,
  intercept,
  storedDocuments,
} from '../helper.js'

t.test('definitions: create, list, get by id or name, update, delete', async (t) => {
  const { server, as, resources } = await build(t)
  const created = await server.inject({
    method: 'POST',
    url: DEFINITIONS,
    headers: as.admin,
    payload: { name: 'orders', label: 'Orders' },
  })
  t.equal(created.statusCode, 201)
  const definition = created.json().data
  t.match(definition, {
    _id: /^[0-9a-f]{24}$/,
    name: 'orders',
    label: 'Orders',
    status: 'ready',
    _environmentId: 'env_a',
    _hash: String,
  })

  const byName = await server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: as.member })
  t.equal(byName.statusCode, 200)
  t.same(byName.json().data._id, definition._id)
  const byId = await server.inject({ method: 'GET', url: `${DEFINITIONS}/${definition._id}`, headers: as.member })
  t.same(byId.json().data.name, 'orders')
  const list = await server.inject({ method: 'GET', url: DEFINITIONS, headers: as.member })
  t.same(
    list.json().data.map((item: { name: string }) => item.name),
    ['orders'],
  )
  t.same(list.json().pagination, { hasPrevious: false, hasNext: false, type: 'cursor' })

  const taken = await server.inject({
    method: 'POST',
    url: DEFINITIONS,
    headers: as.admin,
    payload: { name: 'orders' },
  })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error, 'duplicate_name')
  const noName = await server.inject({ method: 'POST', url: DEFINITIONS, headers: as.admin, payload: { label: 'x' } })
  t.equal(noName.statusCode, 400)
  t.match(noName.json().description, /name/)
  const memberCreates = await server.inject({
    method: 'POST',
    url: DEFINITIONS,
    headers: as.member,
    payload: { name: 'mine' },
  })
  t.equal(memberCreates.statusCode, 403)
  t.equal(memberCreates.json().error, 'forbidden')
  for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
    const response = await server.inject({
      method,
      url: `${DEFINITIONS}/orders`,
      headers: as.member,
      payload: method === 'DELETE' ? undefined : { name: 'x' },
    })
    t.equal(response.statusCode, 403, `members cannot ${method}`)
  }

  // Renaming through the cached name: the old name stops resolving at once in this process.
  await server.inject({ method: 'GET', url: documentsOf('orders'), headers: as.member })
  const renamed = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/orders`,
    headers: as.admin,
    payload: { name: 'purchases', label: null },
  })
  t.equal(renamed.statusCode, 200)
  t.equal(renamed.json().data.name, 'purchases')
  t.notOk('label' in renamed.json().data, 'null removes a setting')
  t.not(renamed.json().data._hash, definition._hash)
  t.equal((await server.inject({ method: 'GET', url: documentsOf('orders'), headers: as.member })).statusCode, 404)
  t.equal((await server.inject({ method: 'GET', url: documentsOf('purchases'), headers: as.member })).statusCode, 200)
  const replaced = await server.inject({
    method: 'PUT',
    url: `${DEFINITIONS}/${definition._id}`,
    headers: as.admin,
    payload: { name: 'orders', description: 'all orders' },
  })
  t.equal(replaced.statusCode, 200)
  t.match(replaced.json().data, { name: 'orders', description: 'all orders', _createdOn: definition._createdOn })
  await createDefinition(server, as.admin, { name: 'other' })
  const clash = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/other`,
    headers: as.admin,
    payload: { name: 'orders' },
  })
  t.equal(clash.statusCode, 409)
  t.equal(clash.json().error, 'duplicate_name')

  await server.inject({ method: 'POST', url: `${documentsOf('orders')}/new`, headers: as.member, payload: { a: 1 } })
  const refused = await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/orders`, headers: as.admin })
  t.equal(refused.statusCode, 400, 'refused while documents exist')
  t.match(refused.json().description, /force/)
  const forced = await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/orders?force=true`, headers: as.admin })
  t.equal(forced.statusCode, 200)
  t.same(forced.json(), { status: 'ok', data: { _id: definition._id, deleted: true } })
  t.equal(await storedDocuments(resources.store, definition._id).count({}), 0, 'its documents are gone')
  const gone = await server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: as.member })
  t.equal(gone.statusCode, 404)
  t.equal(gone.json().error, 'document_definition_not_found_for_id_or_name')
  const empty = await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/other`, headers: as.admin })
  t.equal(empty.statusCode, 200, 'an empty definition goes without force')
})

t.test('copy with ?sourceId= and the spec body names', async (t) => {
  const { server, as } = await build(t)
  const source = await createDefinition(server, as.admin, {
    name: 'orders',
    label: 'Orders',
    fields: { title: { type: 'string', required: true } },
  })
  await server.inject({
    method: 'POST',
    url: `${documentsOf('orders')}/new`,
    headers: as.admin,
    payload: { title: 'kept in the source' },
  })
  const body = {
    clientDocument: { id: 'c1' },
    actionInfo: { id: 'a1' },
    actionType: 'copy',
    ddId: source._id,
    workflowId: 'w1',
    value: { id: 'v1' },
    documentDefinitions: [],
  }
  const copy = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}?sourceId=orders`,
    headers: as.admin,
    payload: body,
  })
  t.equal(copy.statusCode, 201)
  t.match(copy.json(), {
    status: 'ok',
    data: {
      name: 'orders (copy)',
      label: 'Orders',
      status: 'ready',
      fields: { title: { type: 'string', required: true } },
      _id: /^[0-9a-f]{24}$/,
    },
  })
  t.not(copy.json().data._id, source._id)
  const second = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}?sourceId=${source._id}`,
    headers: as.admin,
    payload: {},
  })
  t.equal(second.json().data.name, 'orders (copy 2)', 'numbered when taken')
  const named = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}?sourceId=orders`,
    headers: as.admin,
    payload: { name: 'orders 2025' },
  })
  t.equal(named.json().data.name, 'orders 2025')
  const documents = await server.inject({ method: 'GET', url: documentsOf('orders (copy)'), headers: as.admin })
  t.same(documents.json().data, [], 'documents are not copied')
  const invalid = await server.inject({
    method: 'POST',
    url: `${documentsOf('orders (copy)')}/new`,
    headers: as.admin,
    payload: {},
  })
  t.equal(invalid.statusCode, 400, 'the copied fields validate writes')
  const missing = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}?sourceId=nope`,
    headers: as.admin,
    payload: {},
  })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error, 'document_definition_not_found_for_id_or_name')
  const member = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}?sourceId=orders`,
    headers: as.member,
    payload: {},
  })
  t.equal(member.statusCode, 403)
})

t.test('typed fields validate writes; the validator follows definition changes', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'places',
    fields: {
      title: { type: 'string', required: true },
      visits: { type: 'number' },
      open: { type: 'boolean' },
      on: { type: 'date' },
      where: { type: 'location' },
      tags: { type: 'array' },
    },
  })
  const core = documentsOf('places')
  const post = (payload: object) => server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload })
  const ok = await post({
    title: 't',
    visits: 2,
    open: true,
    on: '2024-05-01T10:00:00.000Z',
    where: { longitude: 1, latitude: 2 },
    tags: [],
    extra: 'undeclared fields are fine',
  })
  t.equal(ok.statusCode, 201)
  for (const [payload, field] of [
    [{}, 'title'],
    [{ title: 't', where: { longitude: 'east', latitude: 1 } }, 'where'],
    [{ title: 't', on: 'yesterday' }, 'on'],
    [{ title: 't', tags: { a: 1 } }, 'tags'],
  ] as const) {
    const response = await post(payload)
    t.equal(response.statusCode, 400, JSON.stringify(payload))
    t.equal(response.json().error, 'validation_error')
    t.match(response.json().description, `body/${field}`)
  }
  const id = ok.json().data._id
  const removeRequired = await server.inject({
    method: 'PATCH',
    url: `${core}/${id}`,
    headers: as.member,
    payload: { title: null },
  })
  t.equal(removeRequired.statusCode, 400, 'a patch is validated on its result')

  const changed = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/places`,
    headers: as.admin,
    payload: { fields: { code: { type: 'number', required: true } } },
  })
  t.equal(changed.statusCode, 200)
  t.equal((await post({ title: 't' })).statusCode, 400, 'the new fields apply at once')
  t.equal((await post({ code: 7 })).statusCode, 201)
  const badFields = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/places`,
    headers: as.admin,
    payload: { fields: { x: { type: 'money' } } },
  })
  t.equal(badFields.statusCode, 400)
})

t.test('declared indexes: unique ones refuse duplicates', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'people',
    indexes: [{ fields: { email: 1 }, unique: true }, { fields: { city: 1, age: -1 } }],
  })
  const core = documentsOf('people')
  t.equal(
    (await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: { email: 'a@x' } }))
      .statusCode,
    201,
  )
  const duplicate = await server.inject({
    method: 'POST',
    url: `${core}/new`,
    headers: as.member,
    payload: { email: 'a@x' },
  })
  t.equal(duplicate.statusCode, 409)
  t.match(duplicate.json(), { error: 'duplicate_key', description: /unique index/ })
  const dropped = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/people`,
    headers: as.admin,
    payload: { indexes: null },
  })
  t.equal(dropped.statusCode, 200)
  t.equal(
    (await server.inject({ method: 'POST', url: `${core}/new`, headers: as.member, payload: { email: 'a@x' } }))
      .statusCode,
    201,
    'dropped with the declaration',
  )
  const rebuild = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/people`,
    headers: as.admin,
    payload: { indexes: [{ fields: { email: 1 }, unique: true }] },
  })
  t.equal(rebuild.statusCode, 400, 'a unique index the data violates is refused')
})

t.test('definition list parameters: a bad `after` or `limit` is a 400, never a 500', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const other = await createDefinition(server, as.adminB, { name: 'elsewhere' })
  for (const after of ['not-an-id', '0123456789abcdef01234567', other._id]) {
    const response = await server.inject({ method: 'GET', url: `${DEFINITIONS}?after=${after}`, headers: as.member })
    t.equal(response.statusCode, 400, after)
    t.match(response.json(), { status: 'error', error: 'invalid_query', description: /after/ })
  }
  for (const limit of ['0', '801', 'x']) {
    const response = await server.inject({ method: 'GET', url: `${DEFINITIONS}?limit=${limit}`, headers: as.member })
    t.equal(response.statusCode, 400, limit)
    t.match(response.json(), { status: 'error', error: 'validation_error' })
  }
})

t.test('a refused creation opens no collection and builds no index', async (t) => {
  const { server, as, resources } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const opened: string[] = []
  intercept(
    resources.store,
    (name) => name.startsWith('documents.'),
    (real) => ({
      ensureIndex: async (spec) => {
        opened.push(spec.name)
        return real.ensureIndex(spec)
      },
    }),
  )
  const indexes = [{ fields: { code: 1 }, unique: true }]
  const taken = await server.inject({
    method: 'POST',
    url: DEFINITIONS,
    headers: as.admin,
    payload: { name: 'orders', indexes },
  })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error, 'duplicate_name')
  const copyTaken = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}?sourceId=orders`,
    headers: as.admin,
    payload: { name: 'orders', indexes },
  })
  t.equal(copyTaken.statusCode, 409)
  const invalid = await server.inject({
    method: 'POST',
    url: DEFINITIONS,
    headers: as.admin,
    payload: { name: 'bad', indexes: [{ fields: { code: 2 } }] },
  })
  t.equal(invalid.statusCode, 400)
  t.same(opened, [], 'no index was created for a refused request')

  await createDefinition(server, as.admin, { name: 'fine', indexes })
  t.same(opened, ['externalId', 'dd_code_1_unique'], 'a valid one builds its indexes')
})

t.test('declaring an index over documents with arrays in two of its fields: 400 parallel_arrays', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  await storedDocuments(resources.store, definition._id).insertOne({
    _id: 'both',
    _createdOn: '2024-01-01T00:00:00.000Z',
    _createdByUserId: 'u',
    _lastModifiedOn: '2024-01-01T00:00:00.000Z',
    _lastModifiedByUserId: 'u',
    _documentDefinitionId: definition._id,
    _environmentId: 'env_a',
    status: 'ready',
    accessGroups: [],
    tags: ['a', 'b'],
    sizes: [1, 2],
    _hash: 'h',
  })
  const indexes = [{ fields: { code: 1 } }, { fields: { tags: 1, sizes: 1 } }]
  const response = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/orders`,
    headers: as.admin,
    payload: { indexes },
  })
  t.equal(response.statusCode, 400)
  t.match(response.json(), { status: 'error', error: 'parallel_arrays', description: /tags|sizes/ })
  const stored = await server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: as.admin })
  t.equal(stored.json().data.indexes, undefined, 'the definition is unchanged')
  const names = (await storedDocuments(resources.store, definition._id).indexes()).map((index) => index.name)
  t.same(names.sort(), ['externalId'], 'the index built before the refused one is dropped again')
})

t.test('a definition update that fails (412, 409) leaves the indexes as they were', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, {
    name: 'orders',
    indexes: [{ fields: { code: 1 }, unique: true }],
  })
  await createDefinition(server, as.admin, { name: 'taken' })
  const documents = storedDocuments(resources.store, definition._id)
  const names = async () => (await documents.indexes()).map((index) => index.name).sort()
  const before = await names()
  t.same(before, ['dd_code_1_unique', 'externalId'])

  // Another writer changes the definition while this update builds its new index: its write then fails.
  let raced = false
  intercept(
    resources.store,
    (name) => name === `documents.env_a.${definition._id}`,
    (real) => ({
      ensureIndex: async (spec) => {
        await real.ensureIndex(spec)
        if (raced || spec.name !== 'dd_other_1') return
        raced = true
        const patched = await server.inject({
          method: 'PATCH',
          url: `${DEFINITIONS}/orders`,
          headers: as.admin,
          payload: { label: 'changed meanwhile' },
        })
        t.equal(patched.statusCode, 200)
      },
    }),
  )
  const update = { indexes: [{ fields: { other: 1 } }] }
  const conflict = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/orders`,
    headers: as.admin,
    payload: update,
  })
  t.equal(conflict.statusCode, 412)
  t.equal(conflict.json().error, 'precondition_failed')
  t.same(await names(), before, 'the unique index stays, the new one is dropped again')

  const renamed = await server.inject({
    method: 'PUT',
    url: `${DEFINITIONS}/orders`,
    headers: as.admin,
    payload: { name: 'taken', ...update },
  })
  t.equal(renamed.statusCode, 409)
  t.same(await names(), before)

  // The unique index is still enforced.
  await createDocument(server, as.member, 'orders', { code: 'A' })
  const twice = await server.inject({
    method: 'POST',
    url: `${documentsOf('orders')}/new`,
    headers: as.member,
    payload: { code: 'A' },
  })
  t.equal(twice.statusCode, 409)
  t.match(twice.json(), { error: 'duplicate_key', description: /dd_code_1_unique/ })

  const done = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/orders`,
    headers: as.admin,
    payload: update,
  })
  t.equal(done.statusCode, 200)
  t.same(await names(), ['dd_other_1', 'externalId'], 'a committed update drops what it no longer declares')
})

t.test('each declared index of a definition says whether the store is still building it', async (t) => {
  const { server, as, resources } = await build(t)
  const created = await createDefinition(server, as.admin, {
    name: 'orders',
    indexes: [{ fields: { code: 1 }, unique: true }, { fields: { day: -1 } }],
  })
  t.match(created, { indexes: [{ fields: { code: 1 }, unique: true, state: 'ready' }, { state: 'ready' }] })
  intercept(
    resources.store,
    (name) => name.startsWith('documents.'),
    (real) => ({
      indexes: async () =>
        (await real.indexes()).map((index) => ({
          ...index,
          state: index.name === 'dd_day_-1' ? ('building' as const) : index.state,
        })),
    }),
  )
  const read = await server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: as.member })
  t.same(
    read.json().data.indexes.map((index: { state: string }) => index.state),
    ['ready', 'building'],
  )
  const listed = await server.inject({ method: 'GET', url: DEFINITIONS, headers: as.member })
  t.same(listed.json().data[0].indexes[1], { fields: { day: -1 }, state: 'building' })
  const stored = await DOCUMENTS_COLLECTIONS.definitions.in(resources.store).findOne({ _id: created._id })
  t.same(stored?.indexes, [{ fields: { code: 1 }, unique: true }, { fields: { day: -1 } }], 'state is never stored')
})
