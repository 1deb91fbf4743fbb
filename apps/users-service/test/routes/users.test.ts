import t from 'tap'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, ENV_B, headers } from '../helper.js'

t.test('lists the users of the environment only, in _id order, with the spec pagination', async (t) => {
  const { call, user, adminId, token } = await build(t)
  const { record: alice, token: aliceToken } = await user({
    username: 'alice',
    environments: { [ENV_A]: { name: 'Alice', groups: ['ops'] }, [ENV_B]: { name: 'Alice in B' } },
  })
  const { record: bob } = await user({ username: 'bob', environments: { [ENV_A]: { name: 'Bob', active: false } } })
  await user({ username: 'carol', environments: { [ENV_B]: {} } })

  const all = await call({ method: 'GET', url: '/api/v2/users', headers: headers(aliceToken, ENV_A) })
  t.equal(all.statusCode, 200, 'any member may list')
  const body = all.json()
  t.same(
    body.data.map((u: { username: string }) => u.username),
    ['admin', 'alice', 'bob'],
    'B-only users never appear',
  )
  t.same(body.pagination, { hasPrevious: false, hasNext: false, type: 'cursor' })
  const listedAlice = body.data[1]
  t.same(Object.keys(listedAlice.profile.environments), [ENV_A], 'only the current environment entry')
  t.same(listedAlice.profile.environments[ENV_A], {
    name: 'Alice',
    email: '',
    language: 'en',
    locale: 'en',
    administrator: false,
    active: true,
    groups: ['ops'],
  })
  t.match(listedAlice, {
    _id: alice._id,
    username: 'alice',
    globalEmails: [],
    _createdOn: String,
    _lastModifiedByUserId: String,
  })

  const first = await call({ method: 'GET', url: '/api/v2/users?limit=1', headers: headers(token(adminId), ENV_A) })
  t.equal(first.json().data.length, 1)
  t.same(first.json().pagination, {
    hasPrevious: false,
    hasNext: true,
    type: 'cursor',
    next: `limit=1&exclude=%5B%22authentication%22%5D&after=${adminId}`,
  })
  const second = await call({
    method: 'GET',
    url: `/api/v2/users?${first.json().pagination.next}`,
    headers: headers(token(adminId), ENV_A),
  })
  t.same(
    second.json().data.map((u: { _id: string }) => u._id),
    [alice._id],
  )
  t.equal(second.json().pagination.hasPrevious, true)
  t.equal(second.json().pagination.next, `limit=1&exclude=%5B%22authentication%22%5D&after=${alice._id}`)
  const third = await call({
    method: 'GET',
    url: `/api/v2/users?${second.json().pagination.next}`,
    headers: headers(token(adminId), ENV_A),
  })
  t.same(
    third.json().data.map((u: { _id: string }) => u._id),
    [bob._id],
  )
  t.same(third.json().pagination, { hasPrevious: true, hasNext: false, type: 'cursor' })

  const excluded = await call({
    method: 'GET',
    url: `/api/v2/users?limit=1&exclude=${encodeURIComponent('["profile","globalEmails"]')}`,
    headers: headers(token(adminId), ENV_A),
  })
  t.equal(excluded.statusCode, 200)
  t.notOk('profile' in excluded.json().data[0])
  t.notOk('globalEmails' in excluded.json().data[0])
  t.ok(excluded.json().data[0].username)
  t.equal(
    excluded.json().pagination.next,
    `limit=1&exclude=${encodeURIComponent('["authentication","profile","globalEmails"]')}&after=${adminId}`,
  )
})

t.test('query filters with the allowed operators, within the caller environment only', async (t) => {
  const { call, user, adminId, token } = await build(t)
  const auth = headers(token(adminId), ENV_A)
  await user({ username: 'alice', environments: { [ENV_A]: { groups: ['ops'] }, [ENV_B]: { administrator: true } } })
  await user({ username: 'bob', environments: { [ENV_A]: { groups: [] } } })
  const list = (query: unknown) =>
    call({ method: 'GET', url: `/api/v2/users?query=${encodeURIComponent(JSON.stringify(query))}`, headers: auth })

  const ops = await list({ [`profile.environments.${ENV_A}.groups`]: 'ops' })
  t.equal(ops.statusCode, 200)
  t.same(
    ops.json().data.map((u: { username: string }) => u.username),
    ['alice'],
  )
  const regex = await list({ $or: [{ username: { $regex: '^b' } }, { username: 'admin' }] })
  t.same(
    regex.json().data.map((u: { username: string }) => u.username),
    ['admin', 'bob'],
  )
  const paged = await call({
    method: 'GET',
    url: `/api/v2/users?limit=1&query=${encodeURIComponent('{"username":{"$ne":"x"}}')}`,
    headers: auth,
  })
  t.match(
    paged.json().pagination.next,
    /&query=%7B%22username%22%3A%7B%22%24ne%22%3A%22x%22%7D%7D$/,
    'next keeps the query in force',
  )

  for (const [why, query] of [
    ['a forbidden operator', { $where: 'sleep(1000)' }],
    ['the authentication part', { 'authentication.passwordHash': { $regex: '^scrypt' } }],
    ['another environment entry', { [`profile.environments.${ENV_B}.administrator`]: true }],
    ['the derived environment list', { $and: [{ environmentIds: ENV_B }] }],
    ['the whole profile', { profile: { $exists: true } }],
    ['a non-object', ['x']],
  ] as const) {
    const refused = await list(query)
    t.equal(refused.statusCode, 400, why)
    t.equal(refused.json().error, 'invalid_query', why)
  }
  for (const url of [
    '/api/v2/users?query=%7Bnot-json',
    '/api/v2/users?exclude=%7B%7D',
    '/api/v2/users?exclude=%5B%22_id%22%5D',
    '/api/v2/users?exclude=%5B%22a.b%22%5D',
  ]) {
    const refused = await call({ method: 'GET', url, headers: auth })
    t.equal(refused.statusCode, 400, url)
    t.equal(refused.json().error, 'invalid_query', url)
  }
  for (const url of ['/api/v2/users?limit=0', '/api/v2/users?limit=801', '/api/v2/users?limit=many']) {
    const refused = await call({ method: 'GET', url, headers: auth })
    t.equal(refused.statusCode, 400, url)
    t.equal(refused.json().error, 'validation_error', url)
    t.match(refused.json().description, /limit/)
  }
})

t.test('refusals before the environment is even looked at', async (t) => {
  const { call, user, adminId, token } = await build(t)
  const { token: outsider } = await user({ environments: { [ENV_B]: {} } })
  const noEnv = await call({ method: 'GET', url: '/api/v2/users', headers: headers(token(adminId)) })
  t.equal(noEnv.statusCode, 400)
  t.equal(noEnv.json().error, 'environment_id_missing')
  const noToken = await call({ method: 'GET', url: '/api/v2/users', headers: { 'environment-id': ENV_A } })
  t.equal(noToken.statusCode, 401)
  t.equal(noToken.json().error, 'unauthorized')
  const notMember = await call({ method: 'GET', url: '/api/v2/users', headers: headers(outsider, ENV_A) })
  t.equal(notMember.statusCode, 403)
  t.equal(notMember.json().error, 'forbidden')
})

t.test('reads one user and its reference data; 404 for unknown users and users of another environment', async (t) => {
  const { call, user } = await build(t)
  const { record: alice, token: aliceToken } = await user({
    username: 'alice',
    environments: {
      [ENV_A]: { name: 'Alice', email: 'alice@example.com', administrator: true, groups: ['ops'] },
      [ENV_B]: {},
    },
  })
  const { record: carol } = await user({ username: 'carol', environments: { [ENV_B]: {} } })
  const auth = headers(aliceToken, ENV_A)

  const one = await call({ method: 'GET', url: `/api/v2/users/${alice._id}`, headers: auth })
  t.equal(one.statusCode, 200)
  t.equal(one.json().status, 'ok')
  t.equal(one.json().data.length, 1, 'data is an array holding the one user')
  t.equal(one.json().data[0]._id, alice._id)
  t.same(Object.keys(one.json().data[0].profile.environments), [ENV_A])

  const reference = await call({ method: 'GET', url: `/api/v2/users/${alice._id}/reference-data`, headers: auth })
  t.equal(reference.statusCode, 200)
  t.same(reference.json(), {
    status: 'ok',
    data: {
      _id: alice._id,
      username: 'alice',
      name: 'Alice',
      email: 'alice@example.com',
      language: 'en',
      locale: 'en',
      groups: ['ops'],
      administrator: true,
      active: true,
    },
  })

  for (const url of [
    `/api/v2/users/${carol._id}`,
    `/api/v2/users/${carol._id}/reference-data`,
    '/api/v2/users/000000000000000000000000',
  ]) {
    const missing = await call({ method: 'GET', url, headers: auth })
    t.equal(missing.statusCode, 404, url)
    t.equal(missing.json().error, 'user_not_found', url)
  }
})

t.test('administrators create users in their environment; usernames are unique', async (t) => {
  const { call, user, server, resources } = await build(t)
  const { record: adminA, token: adminToken } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const { token: memberToken } = await user({ environments: { [ENV_A]: {} } })
  const auth = headers(adminToken, ENV_A)

  const created = await call({
    method: 'POST',
    url: '/api/v2/users',
    headers: auth,
    payload: {
      username: 'dave',
      password: 'dave password',
      email: 'Dave@Example.com',
      name: 'Dave',
      groups: ['ops'],
      administrator: false,
    },
  })
  t.equal(created.statusCode, 201)
  const dave = created.json().data[0]
  t.match(dave, {
    _id: /^[0-9a-f]{24}$/,
    username: 'dave',
    globalEmails: [{ address: 'dave@example.com', verified: false }],
    profile: {
      environments: {
        [ENV_A]: { name: 'Dave', email: 'dave@example.com', active: true, administrator: false, groups: ['ops'] },
      },
    },
    _createdByUserId: adminA._id,
  })
  const stored = await COLLECTIONS.users.in(resources.store).findOne({ _id: dave._id })
  t.same(stored?.environmentIds, [ENV_A])
  t.same(stored?.activeEnvironmentIds, [ENV_A])
  t.match(stored?.authentication.passwordHash, /^scrypt\$/, 'the password is stored hashed')

  const login = await server.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { username: 'dave@example.com', password: 'dave password' },
  })
  t.equal(login.statusCode, 200, 'the new user can sign in by e-mail')

  const taken = await call({ method: 'POST', url: '/api/v2/users', headers: auth, payload: { username: 'dave' } })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error, 'duplicate_username')

  const byMember = await call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(memberToken, ENV_A),
    payload: { username: 'eve' },
  })
  t.equal(byMember.statusCode, 403)
  t.equal(byMember.json().error, 'forbidden')

  for (const payload of [
    {},
    { username: 'has space' },
    { username: 'tab\there' },
    { username: 'x', password: 'short' },
    { username: 'x', email: 'nope' },
    { username: 'x', role: 'admin' },
  ]) {
    const invalid = await call({ method: 'POST', url: '/api/v2/users', headers: auth, payload })
    t.equal(invalid.statusCode, 400, JSON.stringify(payload))
    t.equal(invalid.json().error, 'validation_error')
  }
})

t.test('administrators change and deactivate members of their environment only', async (t) => {
  const { call, user, adminId, token, resources } = await build(t)
  const { token: adminA } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const { record: alice, token: aliceToken } = await user({
    environments: { [ENV_A]: { name: 'Alice' }, [ENV_B]: { name: 'B side' } },
  })
  const { record: carol, token: carolToken } = await user({ environments: { [ENV_B]: {} } })
  const auth = headers(adminA, ENV_A)

  const changed = await call({
    method: 'PATCH',
    url: `/api/v2/users/${alice._id}`,
    headers: auth,
    payload: { name: 'Alice A.', groups: ['sales'], language: 'de' },
  })
  t.equal(changed.statusCode, 200)
  t.match(changed.json().data[0].profile.environments[ENV_A], {
    name: 'Alice A.',
    groups: ['sales'],
    language: 'de',
    active: true,
  })
  const stored = await COLLECTIONS.users.in(resources.store).findOne({ _id: alice._id })
  t.equal(stored?.profile.environments[ENV_B]?.name, 'B side', 'the other environment entry is untouched')

  const before = await call({ method: 'GET', url: '/api/v2/users', headers: headers(aliceToken, ENV_A) })
  t.equal(before.statusCode, 200)
  const deactivated = await call({
    method: 'PATCH',
    url: `/api/v2/users/${alice._id}`,
    headers: auth,
    payload: { active: false },
  })
  t.equal(deactivated.statusCode, 200)
  const after = await COLLECTIONS.users.in(resources.store).findOne({ _id: alice._id })
  t.same(after?.activeEnvironmentIds, [ENV_B], 'the derived list follows the entry')
  t.same(after?.environmentIds, [ENV_A, ENV_B])
  const refused = await call({ method: 'GET', url: '/api/v2/users', headers: headers(aliceToken, ENV_A) })
  t.equal(refused.statusCode, 403, "a deactivated user's token stops working in that environment")
  t.equal(refused.json().error, 'forbidden')
  const elsewhere = await call({ method: 'GET', url: '/api/v2/users', headers: headers(aliceToken, ENV_B) })
  t.equal(elsewhere.statusCode, 200, 'and keeps working where the user is still active')
  const stillListed = await call({ method: 'GET', url: `/api/v2/users/${alice._id}`, headers: auth })
  t.equal(stillListed.json().data[0].profile.environments[ENV_A].active, false, 'deactivated, never deleted')

  const otherEnv = await call({
    method: 'PATCH',
    url: `/api/v2/users/${carol._id}`,
    headers: auth,
    payload: { active: false },
  })
  t.equal(otherEnv.statusCode, 404, 'an administrator of A cannot change a user only in B')
  t.equal(otherEnv.json().error, 'user_not_found')
  const untouched = await call({ method: 'GET', url: '/api/v2/users', headers: headers(carolToken, ENV_B) })
  t.equal(untouched.statusCode, 200)

  const byMember = await call({
    method: 'PATCH',
    url: `/api/v2/users/${alice._id}`,
    headers: headers(carolToken, ENV_B),
    payload: { name: 'x' },
  })
  t.equal(byMember.statusCode, 403)
  t.equal(byMember.json().error, 'forbidden')
  const noUsername = await call({
    method: 'PATCH',
    url: `/api/v2/users/${alice._id}`,
    headers: auth,
    payload: { username: 'renamed' },
  })
  t.equal(noUsername.statusCode, 400)
  t.equal(noUsername.json().error, 'validation_error')

  const added = await call({
    method: 'PATCH',
    url: `/api/v2/users/${carol._id}`,
    headers: headers(token(adminId), ENV_A),
    payload: { name: 'Carol' },
  })
  t.equal(added.statusCode, 200, 'a super-administrator adds an existing account to the environment')
  t.match(added.json().data[0].profile.environments[ENV_A], { name: 'Carol', active: true, administrator: false })
  const nowMember = await call({ method: 'GET', url: '/api/v2/users', headers: headers(carolToken, ENV_A) })
  t.equal(nowMember.statusCode, 200)
})

t.test('the secret check every call runs does find secrets', async (t) => {
  const { findSecret } = await import('../helper.js')
  t.equal(findSecret({ data: [{ authentication: {} }] }), '.data.0.authentication')
  t.equal(findSecret({ data: { hash: 'scrypt$32768$8$1$a$b' } }), '.data.hash')
  t.equal(findSecret({ data: { h: 'a'.repeat(64) } }), '.data.h')
  t.equal(findSecret({ data: [{ environmentIds: [] }] }), '.data.0.environmentIds')
  t.equal(findSecret({ status: 'ok', data: { next: 'exclude=%5B%22authentication%22%5D' } }), null)
})
