import t, { type Test } from 'tap'
import { accessToken, createUser, headers } from '@quire/testing'
import { build, ADMIN } from './helper.js'

/** One environment with a definition and a document, a member of it, and the super-administrator. */
async function world(t: Test) {
  const built = await build(t)
  const { server, resources } = built
  const login = await server.inject({ method: 'POST', url: '/auth/login', payload: ADMIN })
  const admin = login.json().data.accessToken as string
  const created = await server.inject({
    method: 'POST',
    url: '/api/v2/environments',
    headers: headers(admin),
    payload: { _id: 'acme', name: 'Acme' },
  })
  t.equal(created.statusCode, 201)
  const member = await createUser(resources.store, { environments: { acme: { administrator: true } } })
  const memberToken = accessToken(resources.keys.privateKey, member._id, { issuedAt: Date.now() - 1000 })
  const definition = await server.inject({
    method: 'POST',
    url: '/api/v2/document-definitions',
    headers: headers(memberToken, 'acme'),
    payload: { name: 'notes' },
  })
  t.equal(definition.statusCode, 201)
  const ddId = definition.json().data._id as string
  const document = await server.inject({
    method: 'POST',
    url: `/api/v2/document-definitions/${ddId}/documents/new`,
    headers: headers(memberToken, 'acme'),
    payload: { title: 'hello' },
  })
  t.equal(document.statusCode, 201)
  /** A call of each service in the environment, as `token`: the status of each. */
  const statuses = async (token: string) => {
    const calls = [
      `/api/v2/document-definitions/${ddId}/documents`,
      `/api/v2/document-definitions/${ddId}`,
      '/api/v2/users',
      '/api/v2/packages/installations',
      '/api/v2/usage-statistics/active-users',
    ]
    const answers = await Promise.all(
      calls.map((url) => server.inject({ method: 'GET', url, headers: headers(token, 'acme') })),
    )
    return Object.fromEntries(calls.map((url, i) => [url, answers[i]?.statusCode]))
  }
  // Every refusal of the installations list is 401 (docs/API.md, "Conventions").
  const statusesAre = (answers: Record<string, number | undefined>, status: number) =>
    Object.entries(answers).every(
      ([url, answer]) => answer === (status === 403 && url.endsWith('/installations') ? 401 : status),
    )
  return { ...built, admin, memberToken, statuses, statusesAre }
}

t.test('a deactivated environment is refused by every service to all but super-administrators', async (t) => {
  const { server, admin, memberToken, statuses, statusesAre } = await world(t)
  t.ok(statusesAre(await statuses(memberToken), 200), 'open to its member while active')

  const off = await server.inject({
    method: 'PATCH',
    url: '/api/v2/environments/acme',
    headers: headers(admin),
    payload: { active: false },
  })
  t.equal(off.statusCode, 200)
  t.match(off.json().data, { _id: 'acme', name: 'Acme', active: false })
  const refused = await statuses(memberToken)
  t.ok(statusesAre(refused, 403), `403 from every service: ${JSON.stringify(refused)}`)
  const superAdministrator = await statuses(admin)
  t.ok(statusesAre(superAdministrator, 200), `open to super-administrators: ${JSON.stringify(superAdministrator)}`)
  const listed = await server.inject({ method: 'GET', url: '/api/v2/environments', headers: headers(memberToken) })
  t.same(listed.json().data, [], 'not in its list')

  await server.inject({
    method: 'PATCH',
    url: '/api/v2/environments/acme',
    headers: headers(admin),
    payload: { active: true },
  })
  t.ok(statusesAre(await statuses(memberToken), 200), 'reactivated: open again')
})

t.test(
  'a deleted environment: refused while it has users, then unreachable for everyone, its id never reused',
  async (t) => {
    const { server, admin, memberToken, statuses, statusesAre } = await world(t)
    const refused = await server.inject({ method: 'DELETE', url: '/api/v2/environments/acme', headers: headers(admin) })
    t.equal(refused.statusCode, 400)
    t.equal(refused.json().error, 'validation_error')

    const deleted = await server.inject({
      method: 'DELETE',
      url: '/api/v2/environments/acme?force=true',
      headers: headers(admin),
    })
    t.equal(deleted.statusCode, 200)
    t.same(deleted.json().data, { _id: 'acme', deleted: true, removedUserEntries: 1 })
    for (const token of [memberToken, admin]) {
      const answers = await statuses(token)
      t.ok(statusesAre(answers, 403), `its definitions and documents are unreachable: ${JSON.stringify(answers)}`)
    }
    const again = await server.inject({
      method: 'POST',
      url: '/api/v2/environments',
      headers: headers(admin),
      payload: { _id: 'acme', name: 'New Acme' },
    })
    t.equal(again.statusCode, 409, 'a new environment cannot take the id and inherit its documents')
  },
)
