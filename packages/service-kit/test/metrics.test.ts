import t from 'tap'
import { createServer } from '../src/index.js'

const TOKEN = 'metrics-token-0123456789'

t.test('without a token there is no /metrics', async (t) => {
  const app = createServer({ logLevel: 'silent' })
  t.after(() => app.close())
  t.equal((await app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
})

t.test('with a token: 401 without it or with another, Prometheus text with it', async (t) => {
  const app = createServer({ logLevel: 'silent', metricsToken: TOKEN })
  t.after(() => app.close())
  let filesUp = true
  app.addReadinessCheck('files', async () => {
    if (!filesUp) throw new Error('down')
  })
  app.get('/things/:id', async () => ({ ok: true }))
  await app.inject({ method: 'GET', url: '/things/1' })
  await app.inject({ method: 'GET', url: '/things/2' })
  await app.inject({ method: 'GET', url: '/nowhere' })

  for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN]) {
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} })
    t.equal(res.statusCode, 401, String(authorization))
    t.equal(res.json().error, 'unauthorized')
  }

  const lowerCase = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `bearer ${TOKEN}` } })
  t.equal(lowerCase.statusCode, 200, 'the scheme is case-insensitive')
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const text = res.body
  t.match(text, /quire_http_request_duration_seconds_count\{method="GET",route="\/things\/:id",status="200"\} 2/)
  t.match(text, /quire_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1/)
  t.match(text, /quire_http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/things\/:id"/)
  t.match(text, /nodejs_eventloop_lag_seconds \d/)
  t.match(text, /process_resident_memory_bytes \d/)
  t.match(text, /quire_dependency_up\{dependency="files"\} 1/)
  t.match(text, /quire_dependency_ping_seconds\{dependency="files"\} \d/)

  filesUp = false
  const down = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.match(down.body, /quire_dependency_up\{dependency="files"\} 0/)
})

t.test('two servers in one process each count their own requests', async (t) => {
  const one = createServer({ logLevel: 'silent', metricsToken: TOKEN })
  const two = createServer({ logLevel: 'silent', metricsToken: TOKEN })
  t.after(() => Promise.all([one.close(), two.close()]))
  await one.inject({ method: 'GET', url: '/health' })
  const res = await two.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.notMatch(res.body, /route="\/health"/)
})
