import t from 'tap'
import { localCounts } from '@quire/service-kit'
import Fastify from 'fastify'
import helmet from '@fastify/helmet'
import { HELMET_OPTIONS, SECURITY_HEADERS, edgePlugin } from '../src/plugins/edge.js'
import { build } from './helper.js'

const URL = '/api/v2/usage-statistics/active-users'

/** The headers that govern a rendered page: on every answer but JSON. */
const PAGE_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]

t.test('a JSON answer carries the security headers that guard any answer, not those of a page', async (t) => {
  const { server } = await build(t)
  const res = await server.inject({ method: 'GET', url: URL, headers: { 'environment-id': 'default' } })
  t.equal(res.statusCode, 401)
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.equal(res.headers['x-frame-options'], 'SAMEORIGIN')
  t.equal(res.headers['cross-origin-resource-policy'], 'same-site')
  t.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains')
  for (const name of PAGE_ONLY) t.equal(res.headers[name], undefined, name)
})

t.test('an answer a browser may render as a page carries every security header', async (t) => {
  const { server } = await build(t)
  const res = await server.inject({ method: 'GET', url: '/docs/' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/html/)
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) t.equal(res.headers[name], value, name)
})

t.test('a type that only starts like JSON is answered as a page could be', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(edgePlugin, {
    corsOrigins: [],
    rateLimitPerMinute: 0,
    counts: localCounts(),
    maxEventLoopDelay: 0,
  })
  app.get('/:type', async (request, reply) => reply.type((request.params as { type: string }).type).send('{}'))
  const json = await app.inject({ method: 'GET', url: `/${encodeURIComponent('application/json; charset=utf-8')}` })
  t.equal(json.headers['referrer-policy'], undefined)
  const lookalike = await app.inject({ method: 'GET', url: `/${encodeURIComponent('application/jsonx')}` })
  t.match(lookalike.headers['content-type'], /^application\/jsonx/)
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) t.equal(lookalike.headers[name], value, name)
})

t.test('the security headers are the ones @fastify/helmet sets with the same options', async (t) => {
  const reference = Fastify()
  t.teardown(() => reference.close())
  await reference.register(helmet, HELMET_OPTIONS)
  reference.get('/', async () => ({}))
  const res = await reference.inject({ method: 'GET', url: '/' })
  const { 'content-type': _type, 'content-length': _length, date: _date, connection: _connection, ...set } = res.headers
  t.same(set, SECURITY_HEADERS)
})

t.test('CORS is off unless origins are configured, then only for them', async (t) => {
  const closed = await build(t)
  const none = await closed.server.inject({ method: 'GET', url: URL, headers: { origin: 'https://app.example' } })
  t.notOk(none.headers['access-control-allow-origin'])

  const { server } = await build(t, { QUIRE_CORS_ORIGINS: 'https://app.example' })
  const preflight = await server.inject({
    method: 'OPTIONS',
    url: URL,
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization,environment-id',
    },
  })
  t.equal(preflight.statusCode, 204)
  t.equal(preflight.headers['access-control-allow-origin'], 'https://app.example')
  t.match(String(preflight.headers['access-control-allow-headers']), /environment-id/)
  const other = await server.inject({ method: 'GET', url: URL, headers: { origin: 'https://evil.example' } })
  t.not(other.headers['access-control-allow-origin'], 'https://evil.example')
})

t.test(
  'rate limit at the edge: requests without credentials, by address (429 rate_limited with Retry-After)',
  async (t) => {
    const { server } = await build(t, { QUIRE_RATE_LIMIT_PER_MINUTE: '3' })
    const call = (remoteAddress: string, authorization?: string) =>
      server.inject({
        method: 'GET',
        url: URL,
        remoteAddress,
        headers: { 'environment-id': 'default', ...(authorization ? { authorization } : {}) },
      })
    for (let i = 0; i < 3; i++) t.equal((await call('10.0.0.1')).statusCode, 401)
    const limited = await call('10.0.0.1')
    t.equal(limited.statusCode, 429)
    t.equal(limited.json().error, 'rate_limited')
    t.ok(Number(limited.headers['retry-after']) > 0)
    t.equal((await call('10.0.0.2')).statusCode, 401, 'another address has its own budget')
    // Signed-in callers are limited by the services once their token is verified (accounts-abuse.test.ts).
    const withCredentials = await call('10.0.0.1', 'Bearer token-one-aaaaaaaaaaaaaaaa')
    t.equal(withCredentials.statusCode, 401, 'a request with credentials is left to the services')
  },
)
