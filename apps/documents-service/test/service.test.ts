import t from 'tap'
import { service } from '../src/service.js'
import { build, DEFINITIONS } from './helper.js'

t.test('the manifest: every route lies under its prefixes (mountService refuses any other)', async (t) => {
  t.equal(service.name, 'documents')
  t.same(service.prefixes, ['/api/v2/document-definitions', '/api/v2/documents', '/api/v2/webhooks'])
  const { server, as } = await build(t)
  t.equal((await server.inject({ method: 'GET', url: DEFINITIONS, headers: as.member })).statusCode, 200)
  const copy = await server.inject({
    method: 'POST',
    url: `${service.prefixes[1]}/copyAttachments`,
    headers: as.member,
    payload: [],
  })
  t.equal(copy.statusCode, 400, 'copyAttachments answers under the second prefix')
})
