import t from 'tap'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, ENV_B, headers } from '../helper.js'

t.test('super-administrators create and list environments without an environment-id', async (t) => {
  const { call, token, adminId, user } = await build(t)
  const auth = headers(token(adminId))

  const created = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: auth,
    payload: { _id: 'acme_prod', name: 'Acme' },
  })
  t.equal(created.statusCode, 201)
  t.match(created.json(), { status: 'ok', data: { _id: 'acme_prod', name: 'Acme', _createdByUserId: adminId } })

  const listed = await call({ method: 'GET', url: '/api/v2/environments', headers: auth })
  t.equal(listed.statusCode, 200)
  t.same(
    listed.json().data.map((e: { _id: string }) => e._id),
    ['acme_prod', ENV_A, ENV_B],
  )

  const taken = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: auth,
    payload: { _id: 'acme_prod', name: 'Again' },
  })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error, 'duplicate_name')

  const badId = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: auth,
    payload: { _id: 'Not A Slug', name: 'x' },
  })
  t.equal(badId.statusCode, 400)
  t.equal(badId.json().error, 'validation_error')
  t.match(badId.json().description, /_id/)

  const { token: adminOfA } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const forbidden = await call({
    method: 'POST',
    url: '/api/v2/environments',
    payload: { _id: 'mine', name: 'Mine' },
    headers: headers(adminOfA, ENV_A),
  })
  t.equal(forbidden.statusCode, 403, 'an environment administrator is not a super-administrator')
  t.equal(forbidden.json().error, 'forbidden')
  const own = await call({ method: 'GET', url: '/api/v2/environments', headers: headers(adminOfA) })
  t.same(
    own.json().data.map((e: { _id: string }) => e._id),
    [ENV_A],
    'it lists only its own environments',
  )
  const anonymous = await call({ method: 'GET', url: '/api/v2/environments' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().error, 'unauthorized')
})

t.test('every signed-in user lists the active environments it belongs to, with their names', async (t) => {
  const { call, token, adminId, user } = await build(t)
  const admin = headers(token(adminId))
  const { token: member } = await user({ environments: { [ENV_A]: {}, [ENV_B]: { active: false } } })
  const listed = await call({ method: 'GET', url: '/api/v2/environments', headers: headers(member) })
  t.equal(listed.statusCode, 200)
  t.match(listed.json().data, [{ _id: ENV_A, name: ENV_A, active: true }])
  t.equal(listed.json().data.length, 1, 'not the environment where its entry is inactive')

  await call({ method: 'PATCH', url: `/api/v2/environments/${ENV_A}`, headers: admin, payload: { active: false } })
  const none = await call({ method: 'GET', url: '/api/v2/environments', headers: headers(member) })
  t.same(none.json().data, [], 'nor a deactivated environment')
  const all = await call({ method: 'GET', url: '/api/v2/environments', headers: admin })
  t.match(
    all.json().data,
    [
      { _id: ENV_A, active: false },
      { _id: ENV_B, active: true },
    ],
    'super-administrators see all',
  )
})

t.test('super-administrators read, rename, deactivate and reactivate an environment', async (t) => {
  const { call, token, adminId, user } = await build(t)
  const admin = headers(token(adminId))
  const url = `/api/v2/environments/${ENV_B}`

  const read = await call({ method: 'GET', url, headers: admin })
  t.equal(read.statusCode, 200)
  t.match(read.json().data, { _id: ENV_B, name: ENV_B, active: true })
  const missing = await call({ method: 'GET', url: '/api/v2/environments/nowhere', headers: admin })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error, 'not_found')

  const renamed = await call({ method: 'PATCH', url, headers: admin, payload: { name: 'Beta' } })
  t.equal(renamed.statusCode, 200)
  t.match(renamed.json().data, { _id: ENV_B, name: 'Beta', active: true })
  for (const payload of [{}, { name: '' }, { active: 'no' }, { _id: 'other' }]) {
    const refused = await call({ method: 'PATCH', url, headers: admin, payload })
    t.equal(refused.statusCode, 400, JSON.stringify(payload))
    t.equal(refused.json().error, 'validation_error')
  }

  const { token: member } = await user({ environments: { [ENV_B]: { administrator: true } } })
  for (const request of [
    { method: 'GET' as const, url },
    { method: 'PATCH' as const, url, payload: { name: 'Mine' } },
    { method: 'DELETE' as const, url },
  ]) {
    const forbidden = await call({ ...request, headers: headers(member) })
    t.equal(forbidden.statusCode, 403, `${request.method}: an environment administrator may not`)
  }

  const inEnvironment = (bearer: string) =>
    call({ method: 'GET', url: '/api/v2/users', headers: headers(bearer, ENV_B) })
  t.equal((await inEnvironment(member)).statusCode, 200)
  const deactivated = await call({ method: 'PATCH', url, headers: admin, payload: { active: false } })
  t.match(deactivated.json().data, { name: 'Beta', active: false })
  const refused = await inEnvironment(member)
  t.equal(refused.statusCode, 403, 'a deactivated environment is closed to its members')
  t.equal(refused.json().error, 'forbidden')
  t.equal((await inEnvironment(token(adminId))).statusCode, 200, 'and open to super-administrators')
  await call({ method: 'PATCH', url, headers: admin, payload: { active: true } })
  t.equal((await inEnvironment(member)).statusCode, 200, 'reactivated: open again, the entries were kept')
})

t.test('deleting an environment: refused while users have entries in it, unless forced', async (t) => {
  const { call, token, adminId, user, resources } = await build(t)
  const admin = headers(token(adminId))
  const url = `/api/v2/environments/${ENV_B}`
  const { record, token: member } = await user({ environments: { [ENV_A]: {}, [ENV_B]: { administrator: true } } })

  const refused = await call({ method: 'DELETE', url, headers: admin })
  t.equal(refused.statusCode, 400)
  t.equal(refused.json().error, 'validation_error')
  t.match(refused.json().description, /force=true/)

  const deleted = await call({ method: 'DELETE', url: `${url}?force=true`, headers: admin })
  t.equal(deleted.statusCode, 200)
  t.same(deleted.json().data, { _id: ENV_B, deleted: true, removedUserEntries: 1 })
  const stored = await COLLECTIONS.users.in(resources.store).findOne({ _id: record._id })
  t.same(Object.keys(stored?.profile.environments ?? {}), [ENV_A], "the user's entry of it is gone")
  t.same(stored?.environmentIds, [ENV_A])
  t.same(stored?.activeEnvironmentIds, [ENV_A])

  t.equal((await call({ method: 'GET', url, headers: admin })).statusCode, 404)
  t.equal((await call({ method: 'DELETE', url: `${url}?force=true`, headers: admin })).statusCode, 404)
  const listed = await call({ method: 'GET', url: '/api/v2/environments', headers: admin })
  t.same(
    listed.json().data.map((e: { _id: string }) => e._id),
    [ENV_A],
  )
  for (const bearer of [member, token(adminId)]) {
    const gone = await call({ method: 'GET', url: '/api/v2/users', headers: headers(bearer, ENV_B) })
    t.equal(gone.statusCode, 403, 'no one may use a deleted environment')
  }
  const again = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: admin,
    payload: { _id: ENV_B, name: 'Again' },
  })
  t.equal(again.statusCode, 409, 'its id is never reused: what other services stored for it stays unreachable')
  t.equal(again.json().error, 'duplicate_name')

  await call({ method: 'POST', url: '/api/v2/environments', headers: admin, payload: { _id: 'empty', name: 'Empty' } })
  const empty = await call({ method: 'DELETE', url: '/api/v2/environments/empty', headers: admin })
  t.equal(empty.statusCode, 200, 'an environment no user belongs to is deleted without force')
  t.equal(empty.json().data.removedUserEntries, 0)
})
