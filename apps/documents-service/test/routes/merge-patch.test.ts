import t from 'tap'
import { build, createDefinition, createDocument, documentsOf, getDocument } from '../helper.js'

const MERGE_PATCH = 'application/merge-patch+json'

t.test('PATCH with application/merge-patch+json merges objects recursively; null removes (RFC 7396)', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const order = await createDocument(server, as.member, 'orders', {
    title: 'x',
    address: { street: 'Main 1', city: 'Bern', zip: '3000', geo: { lat: 1, lon: 2 } },
    tags: ['a', 'b'],
  })
  const url = `${documentsOf('orders')}/${order._id}`
  const patch = (contentType: string, body: unknown) =>
    server.inject({
      method: 'PATCH',
      url,
      headers: { ...as.member, 'content-type': contentType },
      payload: JSON.stringify(body),
    })

  const merged = await patch(`${MERGE_PATCH}; charset=utf-8`, {
    address: { city: 'Basel', zip: null, geo: { lat: 5 } },
    tags: ['z'],
    _createdByUserId: 'forged',
  })
  t.equal(merged.statusCode, 200)
  t.equal(merged.headers.etag, `"${merged.json().data._hash}"`)
  const stored = await getDocument(server, as.member, 'orders', order._id)
  t.same(stored.address, { street: 'Main 1', city: 'Basel', geo: { lat: 5, lon: 2 } }, 'merged member by member')
  t.same(stored.tags, ['z'], 'an array is replaced')
  t.equal(stored.title, 'x', 'untouched fields stay')
  t.equal(stored._createdByUserId, order._createdByUserId, 'system fields are not the patch’s')

  // application/json keeps its top-level merge: the object is replaced as sent.
  const topLevel = await patch('application/json', { address: { city: 'Zug' } })
  t.equal(topLevel.statusCode, 200)
  t.same((await getDocument(server, as.member, 'orders', order._id)).address, { city: 'Zug' })

  const removed = await patch(MERGE_PATCH, { address: null, title: null })
  t.equal(removed.statusCode, 200)
  const after = await getDocument(server, as.member, 'orders', order._id)
  t.notOk('address' in after)
  t.notOk('title' in after)
})

t.test('a merge patch is checked as any PATCH: If-Match, groups, body shape, JSON', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const order = await createDocument(server, as.sales, 'orders', { accessGroups: ['sales'], title: 'x' })
  const url = `${documentsOf('orders')}/${order._id}`
  const headers = { ...as.sales, 'content-type': MERGE_PATCH }

  const stale = await server.inject({
    method: 'PATCH',
    url,
    headers: { ...headers, 'if-match': '"stale"' },
    payload: JSON.stringify({ title: 'y' }),
  })
  t.equal(stale.statusCode, 412)
  const hidden = await server.inject({
    method: 'PATCH',
    url,
    headers: { ...as.member, 'content-type': MERGE_PATCH },
    payload: JSON.stringify({ title: 'y' }),
  })
  t.equal(hidden.statusCode, 404, 'a member outside the group does not see it')
  const array = await server.inject({ method: 'PATCH', url, headers, payload: '[{"title":"y"}]' })
  t.equal(array.statusCode, 400, 'a patch that is not an object')
  const broken = await server.inject({ method: 'PATCH', url, headers, payload: '{"title":' })
  t.equal(broken.statusCode, 400, 'not JSON')
  t.equal((await getDocument(server, as.sales, 'orders', order._id)).title, 'x', 'nothing was written')
})

t.test('only PATCH reads merge patches: other writes and other types stay 415', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const order = await createDocument(server, as.member, 'orders', { title: 'x' })
  const body = JSON.stringify({ title: 'y' })
  const attempts = [
    { method: 'PUT', url: `${documentsOf('orders')}/${order._id}`, type: MERGE_PATCH },
    { method: 'POST', url: `${documentsOf('orders')}/new`, type: MERGE_PATCH },
    { method: 'PATCH', url: `${documentsOf('orders')}/${order._id}`, type: 'text/plain' },
    { method: 'PATCH', url: `${documentsOf('orders')}/${order._id}`, type: 'application/json-patch+json' },
  ] as const
  for (const { method, url, type } of attempts) {
    const answer = await server.inject({ method, url, headers: { ...as.member, 'content-type': type }, payload: body })
    t.equal(answer.statusCode, 415, `${method} ${type}`)
    t.equal(answer.json().error, 'unsupported_media_type')
  }
  t.equal((await getDocument(server, as.member, 'orders', order._id)).title, 'x')
})
