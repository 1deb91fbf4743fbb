import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { build } from './helper.js'

/** A real upstream on a loopback port that echoes what it received. */
async function echoUpstream(t: Test): Promise<string> {
  const upstream = Fastify()
  upstream.all('/*', async (request) => ({
    url: request.url,
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
  }))
  t.teardown(() => upstream.close())
  await upstream.listen({ port: 0, host: '127.0.0.1' })
  const address = upstream.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return `http://127.0.0.1:${address.port}`
}

t.test(
  'a URL upstream gets the path unchanged, the request id and x-forwarded-*, never client internal headers',
  async (t) => {
    const upstream = await echoUpstream(t)
    const { server } = await build(t, { QUIRE_PACKAGES_URL: upstream })

    const res = await server.inject({
      method: 'POST',
      url: '/api/v2/packages/installations?x=1',
      headers: {
        'environment-id': 'acme',
        'x-request-id': 'client-chosen-id-1',
        'x-quire-caller': 'forged',
        'x-forwarded-for': '6.6.6.6',
        forwarded: 'for=6.6.6.6',
      },
      payload: { packageVersionId: 'v1' },
    })
    t.equal(res.statusCode, 200)
    const echoed = res.json()
    t.equal(echoed.url, '/api/v2/packages/installations?x=1')
    t.equal(echoed.method, 'POST')
    t.same(echoed.body, { packageVersionId: 'v1' })
    t.equal(echoed.headers['environment-id'], 'acme')
    t.equal(echoed.headers['x-request-id'], 'client-chosen-id-1')
    t.notOk(echoed.headers['x-quire-caller'], 'internal header dropped')
    t.equal(echoed.headers['x-forwarded-for'], '127.0.0.1', 'the gateway says who the client is')
    t.notOk(echoed.headers.forwarded)
    t.equal(echoed.headers['x-forwarded-proto'], 'http')

    const other = await server.inject({ method: 'GET', url: '/api/v2/usage-statistics/active-users' })
    t.equal(other.json().url, '/api/v2/usage-statistics/active-users', 'every prefix of the service is proxied')

    const local = await server.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { username: 'admin', password: 'x' },
    })
    t.equal(local.statusCode, 401, 'the other services stay local')
  },
)

t.test('an unreachable upstream answers 502 service_unavailable in the envelope', async (t) => {
  const dead = Fastify()
  await dead.listen({ port: 0, host: '127.0.0.1' })
  const address = dead.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  await dead.close()
  const { server } = await build(t, { QUIRE_DOCUMENTS_URL: `http://127.0.0.1:${address.port}` })

  const res = await server.inject({
    method: 'GET',
    url: '/api/v2/document-definitions',
    headers: { 'environment-id': 'default' },
  })
  t.equal(res.statusCode, 502)
  t.equal(res.json().status, 'error')
  t.equal(res.json().error, 'service_unavailable')
  t.equal(res.json().message, res.json().description)

  const health = await server.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 200, 'the gateway itself keeps answering')
})

t.test('/ready is 503 naming a proxied service that does not answer, 200 while it does', async (t) => {
  const dead = Fastify()
  await dead.listen({ port: 0, host: '127.0.0.1' })
  const address = dead.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  await dead.close()
  const live = await echoUpstream(t)
  const { server } = await build(t, {
    QUIRE_DOCUMENTS_URL: `http://127.0.0.1:${address.port}`,
    QUIRE_PACKAGES_URL: live,
  })

  const res = await server.inject({ method: 'GET', url: '/ready' })
  t.equal(res.statusCode, 503)
  t.equal(res.json().status, 'error')
  t.equal(res.json().error, 'service_unavailable')
  t.match(res.json().message, /\bdocuments\b/, 'names the service that is down')
  t.notMatch(res.json().message, /\bpackages\b/, 'not the one that answers')

  const { server: healthy } = await build(t, { QUIRE_PACKAGES_URL: live })
  const ready = await healthy.inject({ method: 'GET', url: '/ready' })
  t.equal(ready.statusCode, 200)
  t.ok(ready.json().data.checks.includes('packages'), 'the proxied service is among the checks')
})

t.test('a burst of /ready calls probes the upstream once', async (t) => {
  let probes = 0
  const upstream = Fastify()
  upstream.get('/ready', async () => {
    probes++
    return { status: 'ok' }
  })
  t.teardown(() => upstream.close())
  await upstream.listen({ port: 0, host: '127.0.0.1' })
  const address = upstream.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const { server } = await build(t, { QUIRE_PACKAGES_URL: `http://127.0.0.1:${address.port}` })

  const answers = await Promise.all(Array.from({ length: 20 }, () => server.inject({ method: 'GET', url: '/ready' })))
  t.same(
    answers.map((res) => res.statusCode),
    Array.from({ length: 20 }, () => 200),
  )
  t.equal(probes, 1)
})
