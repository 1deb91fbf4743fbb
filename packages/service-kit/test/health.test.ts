import t from 'tap'
import { createServer } from '../src/index.js'

t.test('/health answers; /ready answers 503 while a dependency is down', async (t) => {
  const app = createServer({ logLevel: 'silent' })
  let storeUp = false
  app.addReadinessCheck('records', async () => {
    if (!storeUp) throw new Error('down')
  })
  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 200)
  t.equal(health.json().status, 'ok')

  const down = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(down.statusCode, 503)
  t.equal(down.json().error, 'service_unavailable')

  storeUp = true
  const up = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(up.statusCode, 200)
  t.same(up.json(), { status: 'ok', data: { checks: ['records'] } })
})
