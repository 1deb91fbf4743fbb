import t from 'tap'
import { service } from '../src/service.js'
import { build } from './helper.js'

t.test('the manifest: its name and the public prefixes the gateway routes here', async (t) => {
  t.equal(service.name, 'users')
  t.same(service.prefixes, ['/api/v2/users', '/api/v2/environments', '/auth', '/api/v2/auth'])
})

t.test('mounted with mountService, every route lies under a prefix and each prefix serves', async (t) => {
  const { server } = await build(t)
  t.ok(server.hasRoute({ method: 'GET', url: '/api/v2/users' }))
  t.ok(server.hasRoute({ method: 'GET', url: '/api/v2/users/:userId/long-lived-tokens' }))
  t.ok(server.hasRoute({ method: 'GET', url: '/api/v2/environments' }))
  t.ok(server.hasRoute({ method: 'POST', url: '/auth/login' }))
  t.ok(server.hasRoute({ method: 'POST', url: '/api/v2/auth/reset-2FA' }))
})
