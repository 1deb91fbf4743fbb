import t from 'tap'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import { build, createDefinition } from '../helper.js'
import { WEBHOOKS } from '../webhooks-helper.js'

const hook = { url: 'https://hooks.example.com/quire', events: ['document.create', 'document.delete'] }

t.test('an administrator creates, lists, reads, changes and removes webhooks', async (t) => {
  const { server, as } = await build(t)
  const orders = await createDefinition(server, as.admin, { name: 'orders' })
  const created = await server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: as.admin,
    payload: { ...hook, ddId: 'orders', query: { total: { $gt: 10 } } },
  })
  t.equal(created.statusCode, 201)
  const data = created.json().data
  t.match(data, { url: hook.url, events: hook.events, ddId: orders._id, query: { total: { $gt: 10 } }, paused: false })
  t.match(data.secret, /^whsec_[A-Za-z0-9_-]{43}$/)

  const listed = await server.inject({ method: 'GET', url: WEBHOOKS, headers: as.admin })
  t.equal(listed.statusCode, 200)
  t.same(
    listed.json().data.map((each: { _id: string }) => each._id),
    [data._id],
  )
  t.notOk('secret' in listed.json().data[0], 'the secret is never listed')

  const read = await server.inject({ method: 'GET', url: `${WEBHOOKS}/${data._id}`, headers: as.admin })
  t.equal(read.statusCode, 200)
  t.notOk('secret' in read.json().data)

  const patched = await server.inject({
    method: 'PATCH',
    url: `${WEBHOOKS}/${data._id}`,
    headers: as.admin,
    payload: { paused: true, ddId: null, query: null, events: ['document.update'] },
  })
  t.equal(patched.statusCode, 200)
  t.match(patched.json().data, { paused: true, events: ['document.update'] })
  t.notOk('ddId' in patched.json().data)
  t.notOk('query' in patched.json().data)
  t.notOk('secret' in patched.json().data)

  const removed = await server.inject({ method: 'DELETE', url: `${WEBHOOKS}/${data._id}`, headers: as.admin })
  t.equal(removed.statusCode, 200)
  t.same(removed.json().data, { _id: data._id, deleted: true })
  const gone = await server.inject({ method: 'GET', url: `${WEBHOOKS}/${data._id}`, headers: as.admin })
  t.equal(gone.statusCode, 404)
  t.equal(gone.json().error, 'webhook_not_found')
})

t.test('the secret is shown once, stored sealed, and replaced by a rotation', async (t) => {
  const { server, as, resources } = await build(t)
  const created = (await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })).json().data
  const stored = await DOCUMENTS_COLLECTIONS.webhooks.in(resources.store).findOne({ _id: created._id })
  t.ok(stored)
  t.notOk(JSON.stringify(stored).includes(created.secret), 'the stored record does not hold the secret')
  t.match(stored?.secret, /^v1\$/)

  const rotated = await server.inject({
    method: 'POST',
    url: `${WEBHOOKS}/${created._id}/rotate-secret`,
    headers: as.admin,
  })
  t.equal(rotated.statusCode, 200)
  t.equal(rotated.json().data._id, created._id)
  t.match(rotated.json().data.secret, /^whsec_/)
  t.not(rotated.json().data.secret, created.secret)
})

t.test('lists page by _id', async (t) => {
  const { server, as } = await build(t)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) {
    ids.push((await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })).json().data._id)
  }
  const first = (await server.inject({ method: 'GET', url: `${WEBHOOKS}?limit=2`, headers: as.admin })).json()
  t.same(
    first.data.map((each: { _id: string }) => each._id),
    ids.slice(0, 2),
  )
  t.match(first.pagination, { hasNext: true, hasPrevious: false, type: 'cursor' })
  const second = (
    await server.inject({ method: 'GET', url: `${WEBHOOKS}?${first.pagination.next}`, headers: as.admin })
  ).json()
  t.same(
    second.data.map((each: { _id: string }) => each._id),
    ids.slice(2),
  )
  t.match(second.pagination, { hasNext: false, hasPrevious: true })
})

t.test('members, strangers and other environments get nothing', async (t) => {
  const { server, as } = await build(t)
  const created = (await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })).json().data
  for (const [who, headers] of [
    ['a member', as.member],
    ['a member of another environment', as.outsider],
  ] as const) {
    for (const [method, url] of [
      ['GET', WEBHOOKS],
      ['POST', WEBHOOKS],
      ['GET', `${WEBHOOKS}/${created._id}`],
      ['GET', `${WEBHOOKS}/${created._id}/deliveries`],
    ] as const) {
      const response = await server.inject({ method, url, headers, ...(method === 'POST' && { payload: hook }) })
      t.equal(response.statusCode, 403, `${who}: ${method} ${url}`)
      t.equal(response.json().error, 'forbidden')
    }
  }
  const stranger = await server.inject({ method: 'GET', url: WEBHOOKS, headers: { 'environment-id': 'env_a' } })
  t.equal(stranger.statusCode, 401)

  // B's administrator sees none of A's webhooks, and cannot reach one by its id.
  const listedB = await server.inject({ method: 'GET', url: WEBHOOKS, headers: as.adminB })
  t.same(listedB.json().data, [])
  for (const [method, url] of [
    ['GET', `${WEBHOOKS}/${created._id}`],
    ['PATCH', `${WEBHOOKS}/${created._id}`],
    ['DELETE', `${WEBHOOKS}/${created._id}`],
    ['POST', `${WEBHOOKS}/${created._id}/rotate-secret`],
    ['GET', `${WEBHOOKS}/${created._id}/deliveries`],
  ] as const) {
    const response = await server.inject({
      method,
      url,
      headers: as.adminB,
      ...(method === 'PATCH' && { payload: {} }),
    })
    t.equal(response.statusCode, 404, `${method} ${url}`)
    t.equal(response.json().error, 'webhook_not_found')
  }
  const still = await server.inject({ method: 'GET', url: `${WEBHOOKS}/${created._id}`, headers: as.admin })
  t.equal(still.statusCode, 200)
})

t.test('bad bodies are refused with the field named', async (t) => {
  const { server, as } = await build(t)
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['no events', { url: hook.url, events: [] }, 'validation_error', /events/],
    ['an unknown event', { url: hook.url, events: ['document.read'] }, 'validation_error', /events/],
    ['ftp', { url: 'ftp://hooks.example.com/x', events: hook.events }, 'validation_error', /url/],
    [
      'credentials',
      { url: 'https://user:pw@hooks.example.com/', events: hook.events },
      'validation_error',
      /credentials/,
    ],
    ['a forbidden operator', { ...hook, query: { $where: 'true' } }, 'invalid_query', /query/],
    ['an unknown field', { ...hook, secret: 'mine' }, 'validation_error', /additional properties/],
  ]
  for (const [name, payload, error, description] of cases) {
    const response = await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload })
    t.equal(response.statusCode, 400, name)
    t.equal(response.json().error, error, name)
    t.match(response.json().description, description, name)
  }
  const unknown = await server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: as.admin,
    payload: { ...hook, ddId: 'nope' },
  })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error, 'document_definition_not_found_for_id_or_name')
  const missing = await server.inject({
    method: 'PATCH',
    url: `${WEBHOOKS}/000000000000000000000000`,
    headers: as.admin,
    payload: {},
  })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error, 'webhook_not_found')
})

t.test('targets at non-public addresses are refused when written as addresses', async (t) => {
  const { server, as } = await build(t)
  for (const url of [
    'http://127.0.0.1/hook',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:127.0.0.1]/hook',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://2130706433/hook',
  ]) {
    const response = await server.inject({
      method: 'POST',
      url: WEBHOOKS,
      headers: as.admin,
      payload: { ...hook, url },
    })
    t.equal(response.statusCode, 400, url)
    t.equal(response.json().error, 'validation_error', url)
    t.match(response.json().description, /not a public address/, url)
  }
  const created = (await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })).json().data
  const patched = await server.inject({
    method: 'PATCH',
    url: `${WEBHOOKS}/${created._id}`,
    headers: as.admin,
    payload: { url: 'http://192.168.1.1/' },
  })
  t.equal(patched.statusCode, 400)
  t.equal(patched.json().error, 'validation_error')
})

t.test('QUIRE_WEBHOOKS_ALLOW_PRIVATE lets a private target in', async (t) => {
  const { server, as } = await build(t, { config: { QUIRE_WEBHOOKS_ALLOW_PRIVATE: true } })
  const response = await server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: as.admin,
    payload: { ...hook, url: 'http://127.0.0.1:9/hook' },
  })
  t.equal(response.statusCode, 201)
})

t.test('an environment has at most QUIRE_WEBHOOKS_PER_ENVIRONMENT webhooks', async (t) => {
  const { server, as } = await build(t, { config: { QUIRE_WEBHOOKS_PER_ENVIRONMENT: 2 } })
  for (let i = 0; i < 2; i++) {
    t.equal((await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })).statusCode, 201)
  }
  const third = await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })
  t.equal(third.statusCode, 409)
  t.equal(third.json().error, 'webhook_limit_reached')
  // Another environment's count is its own.
  t.equal((await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.adminB, payload: hook })).statusCode, 201)
})

t.test('without a secrets key webhooks cannot be created', async (t) => {
  const { server, as } = await build(t, { keys: 'public-only' })
  const response = await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: hook })
  t.equal(response.statusCode, 503)
  t.equal(response.json().error, 'service_unavailable')
  t.match(response.json().description, /QUIRE_WEBHOOKS_SECRETS_KEY/)
})
