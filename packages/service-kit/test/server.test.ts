import t from 'tap'
import { CommonConfigSchema, createServer, loadConfig, serverOptionsOf, type LogDestination } from '../src/index.js'

/** A log stream that keeps the parsed lines. */
function memoryLog(): LogDestination & { lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  return {
    lines,
    write: (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>)
    },
  }
}

t.test('at info, one concise line per answered request: no query string, no headers', async (t) => {
  const log = memoryLog()
  const app = createServer({ logLevel: 'info', logStream: log })
  t.after(() => app.close())
  const res = await app.inject({
    method: 'GET',
    url: '/health?token=secret-value',
    headers: { authorization: 'Bearer secret-token', 'x-request-id': 'req-12345678' },
  })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['x-request-id'], 'req-12345678')
  const requests = log.lines.filter((line) => line.reqId === 'req-12345678')
  t.equal(requests.length, 1, 'no arrival line at info')
  t.match(requests[0], { level: 30, msg: 'request', method: 'GET', url: '/health', status: 200, ms: Number })
  t.notMatch(JSON.stringify(log.lines), /secret/, 'neither the query string nor the token is logged')
})

t.test('at debug, a request is also logged when it arrives', async (t) => {
  const log = memoryLog()
  const app = createServer({ logLevel: 'debug', logStream: log })
  t.after(() => app.close())
  await app.inject({ method: 'GET', url: '/nowhere?x=1' })
  t.match(
    log.lines.map((line) => line.msg),
    ['incoming request', 'request'],
  )
  t.match(log.lines[0], { level: 20, method: 'GET', url: '/nowhere' })
  t.match(log.lines[1], { level: 30, status: 404 })
})

t.test('an empty body sent as application/json is no body; any other JSON is parsed as before', async (t) => {
  const app = createServer({ logLevel: 'silent' })
  t.after(() => app.close())
  app.post('/echo', async (request) => ({ body: request.body ?? 'none' }))
  app.post('/required', { schema: { body: { type: 'object', required: ['a'] } } }, async (request) => ({
    body: request.body,
  }))
  const json = { 'content-type': 'application/json' }
  const empty = await app.inject({ method: 'POST', url: '/echo', headers: json, payload: '' })
  t.equal(empty.statusCode, 200)
  t.same(empty.json(), { body: 'none' })
  const charset = { 'content-type': 'application/json; charset=utf-8' }
  t.same((await app.inject({ method: 'POST', url: '/echo', headers: charset, payload: '{"a":1}' })).json(), {
    body: { a: 1 },
  })
  const required = await app.inject({ method: 'POST', url: '/required', headers: json, payload: '' })
  t.equal(required.statusCode, 400, 'a required body is still required')
  const invalid = await app.inject({ method: 'POST', url: '/echo', headers: json, payload: '{' })
  t.equal(invalid.statusCode, 400)
  const poisoned = await app.inject({ method: 'POST', url: '/echo', headers: json, payload: '{"__proto__":{"x":1}}' })
  t.equal(poisoned.statusCode, 400, 'prototype poisoning is still refused')
})

t.test('the common settings reach the server: its body limit and its metrics token', async (t) => {
  const token = 'metrics-token-0123456789'
  const config = loadConfig(CommonConfigSchema, {
    QUIRE_LOG_LEVEL: 'silent',
    QUIRE_BODY_LIMIT: '1024',
    QUIRE_METRICS_TOKEN: token,
  })
  const app = createServer(serverOptionsOf(config))
  app.post('/echo', async (request) => request.body)
  t.after(() => app.close())
  const post = (size: number) => app.inject({ method: 'POST', url: '/echo', payload: { text: 'x'.repeat(size) } })
  t.equal((await post(900)).statusCode, 200)
  const big = await post(1100)
  t.equal(big.statusCode, 413)
  t.equal(big.json().error, 'payload_too_large')
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })
  t.equal(metrics.statusCode, 200)
})
