import t from 'tap'
import { Type } from '@sinclair/typebox'
import { USER_DESCRIPTIONS } from '@quire/contracts'
import { createServer, fail } from '../src/index.js'

const ENVELOPE_KEYS = ['description', 'error', 'message', 'status', 'userDescription']

function build() {
  const app = createServer({ logLevel: 'silent', bodyLimit: 1024 })
  app.post('/things', { schema: { body: Type.Object({ name: Type.String(), size: Type.Integer() }) } }, async () => ({
    ok: true,
  }))
  app.get('/conflict', async () => {
    throw fail('duplicate_name', 'Name taken: x', 'That name is taken')
  })
  app.get('/missing', async () => {
    throw fail('user_not_found', 'No user 42 in environment acme')
  })
  app.get('/boom', async () => {
    throw new Error('connect ECONNREFUSED 10.0.0.7:27017 secret=hunter2')
  })
  app.get('/teapot', async () => {
    throw Object.assign(new Error('Rate limit exceeded'), { statusCode: 429 })
  })
  return app
}

t.test('an ApiError answers with its status and the whole envelope', async (t) => {
  const res = await build().inject({ method: 'GET', url: '/conflict' })
  t.equal(res.statusCode, 409)
  t.same(res.json(), {
    status: 'error',
    error: 'duplicate_name',
    description: 'Name taken: x',
    userDescription: 'That name is taken',
    message: 'Name taken: x',
  })
  t.match(res.headers['content-type'], /application\/json/)
})

t.test('userDescription defaults to the contracts catalogue by code; description stays technical', async (t) => {
  const app = build()
  const missing = await app.inject({ method: 'GET', url: '/missing' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().description, 'No user 42 in environment acme')
  t.equal(missing.json().userDescription, USER_DESCRIPTIONS.user_not_found)
  const invalid = await app.inject({ method: 'POST', url: '/things', payload: { name: 'a', size: 'big' } })
  t.match(invalid.json().description, /body\/size/)
  t.equal(invalid.json().userDescription, USER_DESCRIPTIONS.validation_error, 'no schema path or pattern')
  const unknown = await app.inject({ method: 'GET', url: '/nowhere' })
  t.equal(unknown.json().userDescription, USER_DESCRIPTIONS.not_found)
})

t.test('schema failures are 400 validation_error naming the field', async (t) => {
  const app = build()
  const res = await app.inject({ method: 'POST', url: '/things', payload: { name: 'a', size: 'big' } })
  t.equal(res.statusCode, 400)
  t.equal(res.json().error, 'validation_error')
  t.match(res.json().description, /size/)
  t.same(Object.keys(res.json()).sort(), ENVELOPE_KEYS)

  const badJson = await app.inject({
    method: 'POST',
    url: '/things',
    headers: { 'content-type': 'application/json' },
    payload: '{"name"',
  })
  t.equal(badJson.statusCode, 400)
  t.equal(badJson.json().error, 'validation_error')
})

t.test('body limit, media type and plugin statuses keep the envelope', async (t) => {
  const app = build()
  const big = await app.inject({ method: 'POST', url: '/things', payload: { name: 'x'.repeat(2000), size: 1 } })
  t.equal(big.statusCode, 413)
  t.equal(big.json().error, 'payload_too_large')

  const xml = await app.inject({
    method: 'POST',
    url: '/things',
    headers: { 'content-type': 'application/xml' },
    payload: '<a/>',
  })
  t.equal(xml.statusCode, 415)
  t.equal(xml.json().error, 'unsupported_media_type')

  const limited = await app.inject({ method: 'GET', url: '/teapot' })
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error, 'rate_limited')
  t.ok(limited.headers['retry-after'], 'a 429 always says when to retry')
})

t.test('unexpected errors are 500 internal_error and leak nothing', async (t) => {
  const res = await build().inject({ method: 'GET', url: '/boom' })
  t.equal(res.statusCode, 500)
  t.equal(res.json().error, 'internal_error')
  t.notMatch(res.body, /ECONNREFUSED|hunter2|27017|at /)
})

t.test("a store's full disk is 507 insufficient_storage, its message kept for the log", async (t) => {
  const app = build()
  app.post('/full', async () => {
    throw Object.assign(new Error('the disk holding the store is full: /srv/quire/data'), { statusCode: 507 })
  })
  const res = await app.inject({ method: 'POST', url: '/full' })
  t.equal(res.statusCode, 507)
  t.same(Object.keys(res.json()).sort(), ENVELOPE_KEYS)
  t.equal(res.json().error, 'insufficient_storage')
  t.equal(res.json().userDescription, USER_DESCRIPTIONS.insufficient_storage)
  t.notMatch(res.body, /srv|quire\/data/)
})

t.test('unknown routes are 404 not_found; every answer has a request id', async (t) => {
  const res = await build().inject({ method: 'DELETE', url: '/nowhere?x=1' })
  t.equal(res.statusCode, 404)
  t.equal(res.json().error, 'not_found')
  t.equal(res.json().description, 'Route DELETE /nowhere not found')
  t.ok(res.headers['x-request-id'])
  const kept = await build().inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'gateway-id-1234' } })
  t.equal(kept.headers['x-request-id'], 'gateway-id-1234', 'a request id from the gateway is kept')
  const replaced = await build().inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'bad id\n' } })
  t.not(replaced.headers['x-request-id'], 'bad id\n')
})

t.test(
  'server errors are logged with where they were thrown; client errors, being answers, carry no stack',
  async (t) => {
    const lines: string[] = []
    const app = createServer({
      logLevel: 'error',
      logStream: {
        write: (line) => {
          lines.push(line)
        },
      },
    })
    app.get('/down', async function readsTheDisk() {
      throw fail('internal_error', 'the disk is gone')
    })
    const res = await app.inject({ method: 'GET', url: '/down' })
    t.equal(res.statusCode, 500)
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'request failed')
    t.match(logged?.err?.stack, /readsTheDisk/)

    const limit = Error.stackTraceLimit
    t.notMatch(fail('document_not_found', 'No document 42').stack, /\n\s+at /)
    t.equal(Error.stackTraceLimit, limit, 'the stack trace limit is restored')
  },
)
