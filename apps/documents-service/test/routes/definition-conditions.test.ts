import t from 'tap'
import { build, createDefinition, DEFINITIONS } from '../helper.js'

t.test('GET of a definition: its _hash is the ETag, and a current If-None-Match is 304 without a body', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const get = (headers: Record<string, string> = {}) =>
    server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: { ...as.member, ...headers } })

  const first = await get()
  t.equal(first.statusCode, 200)
  const etag = first.headers.etag as string
  t.equal(etag, `"${first.json().data._hash as string}"`)
  for (const condition of [etag, `W/${etag}`, '*']) {
    const cached = await get({ 'if-none-match': condition })
    t.equal(cached.statusCode, 304, condition)
    t.equal(cached.body, '', 'no body')
    t.equal(cached.headers['content-type'], undefined, 'no Content-Type')
    t.equal(cached.headers.etag, etag)
  }
  t.equal((await get({ 'if-none-match': '"stale"' })).statusCode, 200)

  await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/orders`,
    headers: as.admin,
    payload: { label: 'Orders' },
  })
  const changed = await get({ 'if-none-match': etag })
  t.equal(changed.statusCode, 200, 'a write changes the tag')
  t.equal(changed.json().data.label, 'Orders')
})

t.test('PUT, PATCH and DELETE of a definition with a stale If-Match are 412 and change nothing', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders', label: 'first' })
  const url = `${DEFINITIONS}/orders`
  const read = async () => (await server.inject({ method: 'GET', url, headers: as.admin })).json().data
  const before = await read()
  const stale = { ...as.admin, 'if-match': '"not-the-hash"' }

  for (const [method, payload] of [
    ['PUT', { name: 'orders', label: 'second' }],
    ['PATCH', { label: 'second' }],
    ['DELETE', undefined],
  ] as const) {
    const refused = await server.inject({ method, url, headers: stale, ...(payload ? { payload } : {}) })
    t.equal(refused.statusCode, 412, `${method} with a stale If-Match`)
    t.equal(refused.json().error, 'precondition_failed')
  }
  t.same(await read(), before, 'the definition is as it was')

  const patched = await server.inject({
    method: 'PATCH',
    url,
    headers: { ...as.admin, 'if-match': `"${before._hash as string}"` },
    payload: { label: 'second' },
  })
  t.equal(patched.statusCode, 200, 'the current tag is accepted')
  t.equal(patched.headers.etag, `"${patched.json().data._hash as string}"`, 'the new ETag comes back')
  const put = await server.inject({
    method: 'PUT',
    url,
    headers: { ...as.admin, 'if-match': `"${before._hash as string}"` },
    payload: { name: 'orders', label: 'third' },
  })
  t.equal(put.statusCode, 412, "the old tag no longer is: two clients can't both win")
  const deleted = await server.inject({
    method: 'DELETE',
    url,
    headers: { ...as.admin, 'if-match': patched.headers.etag as string },
  })
  t.equal(deleted.statusCode, 200)
  t.equal((await server.inject({ method: 'GET', url, headers: as.admin })).statusCode, 404)
})

t.test('the definitions list honours exclude, and its next carries it on', async (t) => {
  const { server, as } = await build(t)
  for (const name of ['a', 'b', 'c']) await createDefinition(server, as.admin, { name, label: name.toUpperCase() })
  const list = (query: string) => server.inject({ method: 'GET', url: `${DEFINITIONS}?${query}`, headers: as.member })

  const exclude = encodeURIComponent(JSON.stringify(['label', 'fields']))
  const first = (await list(`limit=2&exclude=${exclude}`)).json()
  t.same(
    first.data.map((definition: { name: string }) => definition.name),
    ['a', 'b'],
  )
  for (const definition of first.data) {
    t.notOk('label' in definition, 'label left out')
    t.notOk('fields' in definition, 'fields left out')
    t.ok(definition._id)
  }
  t.match(first.pagination.next, /^limit=2&exclude=%5B%22label%22%2C%22fields%22%5D&after=[0-9a-f]{24}$/)
  const second = (await list(first.pagination.next)).json()
  t.same(
    second.data.map((definition: { name: string; label?: string }) => [definition.name, definition.label]),
    [['c', undefined]],
    'the next page leaves out the same fields',
  )
  t.match((await list('limit=2')).json().pagination.next, /^limit=2&exclude=%5B%5D&after=/)
  t.equal((await list('limit=2')).json().data[0].label, 'A', 'nothing left out by default')

  for (const bad of ['not-json', encodeURIComponent('{"label":0}'), encodeURIComponent('["_id"]')]) {
    const refused = await list(`exclude=${bad}`)
    t.equal(refused.statusCode, 400, bad)
    t.equal(refused.json().error, 'invalid_query')
  }
})
