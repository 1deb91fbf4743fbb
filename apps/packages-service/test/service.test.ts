import t from 'tap'
import { service } from '../src/service.js'
import { build } from './helper.js'

t.test('the manifest: its name and the public prefixes the gateway routes here', async (t) => {
  t.equal(service.name, 'packages')
  t.same(service.prefixes, ['/api/v2/packages', '/api/v2/usage-statistics'])
})

t.test('mounted with mountService, every route lies under a prefix and each prefix serves', async (t) => {
  const { server } = await build(t)
  t.ok(server.hasRoute({ method: 'GET', url: '/api/v2/packages' }))
  t.ok(server.hasRoute({ method: 'GET', url: '/api/v2/packages/installations' }))
  t.ok(server.hasRoute({ method: 'GET', url: '/api/v2/usage-statistics/active-users' }))
})
