import t from 'tap'
import { build, ADMIN } from './helper.js'

const TOKEN = 'gateway-metrics-token-0123'

t.test('all-in-one: /metrics is off unless a token is configured', async (t) => {
  const { server } = await build(t)
  t.equal((await server.inject({ method: 'GET', url: '/metrics' })).statusCode, 404)
})

t.test('all-in-one: the gateway counts every service route, and times the stores at each scrape', async (t) => {
  const { server, resources } = await build(t, { QUIRE_METRICS_TOKEN: TOKEN })
  // As server.ts registers them.
  server.addReadinessCheck('records', () => resources.store.ping())
  server.addReadinessCheck('files', () => resources.files.ping())
  const login = await server.inject({ method: 'POST', url: '/auth/login', payload: ADMIN })
  t.equal(login.statusCode, 200)

  const refused = await server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer nope' } })
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().error, 'unauthorized')

  const res = await server.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(res.statusCode, 200)
  t.match(res.body, /quire_http_request_duration_seconds_count\{method="POST",route="\/auth\/login",status="200"\} 1/)
  t.match(res.body, /quire_dependency_up\{dependency="records"\} 1/)
  t.match(res.body, /quire_dependency_up\{dependency="files"\} 1/)
  t.match(res.body, /nodejs_eventloop_lag_seconds/)

  const ready = await server.inject({ method: 'GET', url: '/ready' })
  t.same(ready.json().data.checks, ['records', 'files'], '/ready checks the file store too')
})
