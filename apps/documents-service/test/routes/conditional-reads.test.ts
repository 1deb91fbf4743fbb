import t from 'tap'
import { ifNoneMatchHits } from '../../src/lib/if-match.js'
import { attachmentsOf, upload } from '../attachments-helper.js'
import { build, createDefinition, createDocument, documentsOf } from '../helper.js'

t.test('If-None-Match: `*`, lists, weak and strong tags compare weakly (RFC 9110)', async (t) => {
  t.ok(ifNoneMatchHits('"abc"', 'abc'))
  t.ok(ifNoneMatchHits('W/"abc"', 'abc'), 'a weak tag matches')
  t.ok(ifNoneMatchHits('"x", W/"y" ,"abc"', 'abc'), 'one of a list')
  t.ok(ifNoneMatchHits('*', 'abc'))
  t.notOk(ifNoneMatchHits('"abcd", "ab"', 'abc'))
  t.notOk(ifNoneMatchHits(undefined, 'abc'))
  t.notOk(ifNoneMatchHits('', 'abc'))
})

t.test('GET of a document with a current If-None-Match is 304 without a body', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const document = await createDocument(server, as.member, 'orders', { title: 'a' })
  const url = `${documentsOf('orders')}/${document._id}`
  const get = (headers: Record<string, string>) =>
    server.inject({ method: 'GET', url, headers: { ...as.member, ...headers } })

  const first = await get({})
  const etag = first.headers.etag as string
  for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const cached = await get({ 'if-none-match': condition })
    t.equal(cached.statusCode, 304, condition)
    t.equal(cached.body, '', 'no body')
    // RFC 9110 15.4.5: no content, so neither its length nor its type (a proxy checks the length).
    t.equal(cached.headers['content-length'], undefined, 'no Content-Length')
    t.equal(cached.headers['content-type'], undefined, 'no Content-Type')
    t.equal(cached.headers.etag, etag, 'the ETag is repeated')
  }
  t.equal((await get({ 'if-none-match': '"stale"' })).statusCode, 200)

  await server.inject({ method: 'PATCH', url, headers: as.member, payload: { title: 'b' } })
  const changed = await get({ 'if-none-match': etag })
  t.equal(changed.statusCode, 200, 'a write changes the tag: the old copy is stale')
  t.equal(changed.json().title, 'b')
  const hidden = await server.inject({
    method: 'GET',
    url,
    headers: { ...as.outsider, 'if-none-match': '*' },
  })
  t.equal(hidden.statusCode, 403, 'access is checked first')
  const missing = await server.inject({
    method: 'GET',
    url: `${documentsOf('orders')}/nope`,
    headers: { ...as.member, 'if-none-match': '*' },
  })
  t.equal(missing.statusCode, 404, '`*` matches only a document that exists')
})

t.test('an attachment download with a current If-None-Match is 304, before any Range', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const document = await createDocument(server, as.member, 'orders')
  const saved = await upload(server, as.member, 'orders', document._id, 'valuePath=files', [
    { name: 'a.txt', content: '0123456789' },
  ])
  const [file] = saved.json().data.attachments as { _id: string }[]
  const url = `${attachmentsOf('orders', document._id)}/${file?._id}`
  const etag = `"${file?._id}"`
  for (const method of ['GET', 'HEAD'] as const) {
    const cached = await server.inject({
      method,
      url,
      headers: { ...as.member, 'if-none-match': `W/${etag}`, range: 'bytes=0-1' },
    })
    t.equal(cached.statusCode, 304, method)
    t.equal(cached.body, '')
    t.equal(cached.headers['content-length'], undefined, 'no Content-Length')
    t.equal(cached.headers['content-type'], undefined, 'no Content-Type')
    t.equal(cached.headers.etag, etag)
  }
  const other = await server.inject({ method: 'GET', url, headers: { ...as.member, 'if-none-match': '"x"' } })
  t.equal(other.statusCode, 200)
  t.equal(other.body, '0123456789')
})
