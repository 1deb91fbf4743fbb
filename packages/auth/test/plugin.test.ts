import t, { type Test } from 'tap'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer } from '@quire/service-kit'
import { createEnvironment, createUser, accessToken, headers, testResources } from '@quire/testing'
import { hashToken, IDENTITY_COLLECTIONS, recordsIdentity } from '@quire/identity'
import { authPlugin } from '../src/index.js'

async function build(t: Test, callerRateLimitPerMinute?: number) {
  const resources = await testResources(t)
  const server = createServer({ logLevel: 'silent' })
  await server.register(authPlugin, {
    keys: { publicKey: resources.keys.publicKey },
    identity: recordsIdentity(resources.store),
    callerRateLimitPerMinute,
  })
  server.get('/whoami', { onRequest: server.auth.authenticate }, async (request) => request.caller)
  server.get('/env', { onRequest: server.auth.requireEnvironment }, async (request) => request.caller)
  server.get(
    '/admin',
    { onRequest: [server.auth.requireEnvironment, server.auth.requireAdministrator] },
    async () => 'ok',
  )
  server.get(
    '/super',
    { onRequest: [server.auth.authenticate, server.auth.requireSuperAdministrator] },
    async () => 'ok',
  )
  t.teardown(() => server.close())
  await createEnvironment(resources.store, 'acme')
  await createEnvironment(resources.store, 'globex')
  const sign = (userId: string, options?: { expiresIn?: number; issuedAt?: number }) =>
    accessToken(resources.keys.privateKey, userId, options)
  return { server, ...resources, sign }
}

t.test('bearer tokens: missing, malformed, forged, expired and valid', async (t) => {
  const { server, store, sign } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const get = (authorization?: string) =>
    server.inject({ method: 'GET', url: '/whoami', headers: authorization ? { authorization } : {} })

  for (const [label, authorization] of [
    ['no header', undefined],
    ['not bearer', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['garbage', 'Bearer not-a-token-at-all-but-long'],
    ['expired', `Bearer ${sign(user._id, { expiresIn: -10 })}`],
    ['unknown user', `Bearer ${sign('000000000000000000000000')}`],
  ] as const) {
    const res = await get(authorization)
    t.equal(res.statusCode, 401, label)
    t.equal(res.json().error, 'unauthorized', label)
  }

  const other = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  })
  const forged = await get(`Bearer ${accessToken(other.privateKey, user._id)}`)
  t.equal(forged.statusCode, 401, 'a token signed with another key')

  const token = sign(user._id)
  const ok = await get(`Bearer ${token}`)
  t.equal(ok.statusCode, 200)
  t.match(ok.json(), { userId: user._id, via: 'access-token', superAdministrator: false, environmentId: null })

  // The scheme is case-insensitive (RFC 9110 §11.1), as clients send it.
  for (const authorization of [`bearer ${token}`, `BEARER ${token}`]) {
    t.equal((await get(authorization)).statusCode, 200, authorization.slice(0, 6))
  }
  // Once verified (and cached), the same token in a malformed header is still refused.
  for (const authorization of [`Bearer  ${token}`, `Bearer ${token} `, `Bearer ${token}\tx`, `Bearer${token}`]) {
    const res = await get(authorization)
    t.equal(res.statusCode, 401, JSON.stringify(authorization))
  }
})

t.test('a verified token is refused once it expires, though it was accepted (and cached) before', async (t) => {
  const { server, store, sign } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const token = sign(user._id, { expiresIn: 60 })
  t.equal((await server.inject({ method: 'GET', url: '/whoami', headers: headers(token) })).statusCode, 200)
  t.equal(
    (await server.inject({ method: 'GET', url: '/whoami', headers: headers(token) })).statusCode,
    200,
    'from the cache',
  )
  const now = Date.now
  t.teardown(() => {
    Date.now = now
  })
  Date.now = () => now() + 61_000
  const late = await server.inject({ method: 'GET', url: '/whoami', headers: headers(token) })
  t.equal(late.statusCode, 401)
  t.equal(late.json().error, 'unauthorized')
})

t.test('access tokens issued before sessionsValidAfter are refused', async (t) => {
  const { server, store, sign } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const before = sign(user._id, { issuedAt: Date.now() - 1000 })
  await IDENTITY_COLLECTIONS.users
    .in(store)
    .updateOne({ _id: user._id }, { $set: { 'authentication.sessionsValidAfter': Date.now() - 500 } })
  t.equal((await server.inject({ method: 'GET', url: '/whoami', headers: headers(before) })).statusCode, 401)
  t.equal((await server.inject({ method: 'GET', url: '/whoami', headers: headers(sign(user._id)) })).statusCode, 200)
})

t.test('a change to a user already seen applies to the next request', async (t) => {
  const { server, store, sign } = await build(t)
  const user = await createUser(store, { environments: { acme: { groups: ['sales'] } } })
  const env = () => server.inject({ method: 'GET', url: '/env', headers: headers(sign(user._id), 'acme') })
  t.match((await env()).json(), { groups: ['sales'] })
  t.match((await env()).json(), { groups: ['sales'] }, 'again, unchanged')
  await IDENTITY_COLLECTIONS.users
    .in(store)
    .updateOne({ _id: user._id }, { $set: { 'profile.environments.acme.groups': ['support'] } })
  t.match((await env()).json(), { groups: ['support'] }, 'new groups at once')
  await IDENTITY_COLLECTIONS.users
    .in(store)
    .updateOne({ _id: user._id }, { $set: { 'profile.environments.acme.active': false } })
  t.equal((await env()).statusCode, 403, 'deactivated at once')
})

t.test('long-lived tokens: live, expired, revoked', async (t) => {
  const { server, store } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const tokens = IDENTITY_COLLECTIONS.longLivedTokens.in(store)
  const now = new Date().toISOString()
  const add = (secret: string, expiresOn: string | null) =>
    tokens.insertOne({
      _id: secret.slice(-24),
      userId: user._id,
      tokenHash: hashToken(secret),
      name: 't',
      _createdOn: now,
      _createdByUserId: user._id,
      expiresOn,
    })
  const live = 'qlt_live_0123456789abcdefghijklmnop'
  const expired = 'qlt_expired_0123456789abcdefghijklm'
  await add(live, null)
  await add(expired, new Date(Date.now() - 1000).toISOString())

  const res = await server.inject({ method: 'GET', url: '/env', headers: headers(live, 'acme') })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { userId: user._id, via: 'long-lived-token', environmentId: 'acme' })
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: headers(expired, 'acme') })).statusCode, 401)

  await tokens.deleteOne({ tokenHash: hashToken(live) })
  const revoked = await server.inject({ method: 'GET', url: '/env', headers: headers(live, 'acme') })
  t.equal(revoked.statusCode, 401, 'refused at once after revocation')
})

t.test('a long-lived token minted for other environments opens those alone, with no super-administrator', async (t) => {
  const { server, store } = await build(t)
  const user = await createUser(store, { environments: { acme: {}, globex: { administrator: true } } })
  const tokens = IDENTITY_COLLECTIONS.longLivedTokens.in(store)
  const secret = 'qlt_bound_0123456789abcdefghijklmno'
  await tokens.insertOne({
    _id: 'bound0000000000000000000',
    userId: user._id,
    tokenHash: hashToken(secret),
    name: 't',
    _createdOn: new Date().toISOString(),
    _createdByUserId: 'minter000000000000000000',
    expiresOn: null,
    environmentIds: ['acme'],
  })
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: headers(secret, 'acme') })).statusCode, 200)
  const globex = await server.inject({ method: 'GET', url: '/env', headers: headers(secret, 'globex') })
  t.equal(globex.statusCode, 403, 'globex: its user administers it, the token was not minted for it')
  t.equal(globex.json().error, 'forbidden')

  await IDENTITY_COLLECTIONS.users.in(store).updateOne({ _id: user._id }, { $set: { isSuperAdministrator: true } })
  const whoami = await server.inject({ method: 'GET', url: '/whoami', headers: headers(secret) })
  t.match(
    whoami.json(),
    { userId: user._id, superAdministrator: false, environmentIds: ['acme'] },
    'its user became super-administrator since',
  )
  t.equal((await server.inject({ method: 'GET', url: '/super', headers: headers(secret) })).statusCode, 403)
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: headers(secret, 'globex') })).statusCode, 403)
  t.match(
    (await server.inject({ method: 'GET', url: '/env', headers: headers(secret, 'acme') })).json(),
    { environmentId: 'acme', superAdministrator: false, administrator: false },
    'in acme, its user’s entry there',
  )
})

t.test('environment scope: header, membership, activity, super-administrator', async (t) => {
  const { server, store, sign } = await build(t)
  const member = await createUser(store, { environments: { acme: { groups: ['sales'] } } })
  const inactive = await createUser(store, { environments: { acme: { active: false } } })
  const admin = await createUser(store, { environments: { acme: { administrator: true } } })
  const root = await createUser(store, { superAdministrator: true })
  const env = (userId: string, environmentId?: string, url = '/env') =>
    server.inject({ method: 'GET', url, headers: headers(sign(userId), environmentId) })

  const missing = await env(member._id)
  t.equal(missing.statusCode, 400)
  t.equal(missing.json().error, 'environment_id_missing')
  const malformed = await env(member._id, '../etc')
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error, 'validation_error')
  const noToken = await server.inject({ method: 'GET', url: '/env', headers: { 'environment-id': 'acme' } })
  t.equal(noToken.statusCode, 401)

  const ok = await env(member._id, 'acme')
  t.equal(ok.statusCode, 200)
  t.match(ok.json(), { environmentId: 'acme', administrator: false, groups: ['sales'] })
  t.equal((await env(member._id, 'globex')).json().error, 'forbidden', 'not a member of globex')
  t.equal((await env(member._id, 'globex')).statusCode, 403)
  t.equal((await env(inactive._id, 'acme')).statusCode, 403, 'a deactivated member is refused')

  t.equal((await env(member._id, 'acme', '/admin')).statusCode, 403, 'members are not administrators')
  t.equal((await env(admin._id, 'acme', '/admin')).statusCode, 200)
  t.equal(
    (await env(root._id, 'globex', '/admin')).statusCode,
    200,
    'a super-administrator administers every environment',
  )
  t.equal((await env(root._id, 'nowhere')).statusCode, 403, 'but only environments that exist')

  t.equal((await server.inject({ method: 'GET', url: '/super', headers: headers(sign(admin._id)) })).statusCode, 403)
  t.equal((await server.inject({ method: 'GET', url: '/super', headers: headers(sign(root._id)) })).statusCode, 200)
})

t.test('rate limit: per verified user across its tokens, per address for failed credentials', async (t) => {
  const { server, store, sign } = await build(t, 3)
  const alice = await createUser(store, { environments: { acme: {} } })
  const bob = await createUser(store, { environments: { acme: {} } })
  const get = (authorization: string, remoteAddress = '10.0.0.1') =>
    server.inject({ method: 'GET', url: '/env', headers: { authorization, 'environment-id': 'acme' }, remoteAddress })

  for (let i = 0; i < 3; i++) {
    t.equal((await get(`Bearer ${sign(alice._id, { issuedAt: Date.now() - i })}`)).statusCode, 200)
  }
  const limited = await get(`Bearer ${sign(alice._id)}`, '10.0.0.2')
  t.equal(limited.statusCode, 429, 'a fresh token of the same user, from another address, shares its budget')
  t.equal(limited.json().error, 'rate_limited')
  t.match(limited.json().userDescription, /wait/)
  t.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60)
  t.equal((await get(`Bearer ${sign(bob._id)}`)).statusCode, 200, 'another user, same address: its own budget')

  for (let i = 0; i < 3; i++) {
    const random = await get(`Bearer ${randomBytes(24).toString('base64url')}`, '10.9.9.9')
    t.equal(random.statusCode, 401, 'a random credential is refused')
  }
  const fourth = await get(`Bearer ${randomBytes(24).toString('base64url')}`, '10.9.9.9')
  t.equal(fourth.statusCode, 429, 'a random Authorization header per request gets no fresh budget')
  t.equal(fourth.json().error, 'rate_limited')
  const noHeader = await server.inject({ method: 'GET', url: '/whoami', remoteAddress: '10.9.9.9' })
  t.equal(noHeader.statusCode, 429, 'nor does no header at all')
  const valid = await get(`Bearer ${sign(bob._id)}`, '10.9.9.9')
  t.equal(valid.statusCode, 429, 'the address is refused before any verification work')
})

t.test('no rate limit unless configured', async (t) => {
  const { server, store, sign } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  for (let i = 0; i < 20; i++) {
    const res = await server.inject({
      method: 'GET',
      url: '/whoami',
      headers: { authorization: `Bearer ${sign(user._id)}` },
    })
    if (res.statusCode !== 200) t.fail(`request ${i}: ${res.statusCode}`)
  }
  t.pass('twenty requests answered')
})

t.test('userDescription is plain language: no header patterns or internals', async (t) => {
  const { server, store, sign } = await build(t)
  const member = await createUser(store, { environments: { acme: {} } })
  const malformed = await server.inject({
    method: 'GET',
    url: '/env',
    headers: { authorization: `Bearer ${sign(member._id)}`, 'environment-id': 'Not Valid!' },
  })
  t.equal(malformed.statusCode, 400)
  t.match(malformed.json().description, /^headers\/environment-id must match/)
  t.equal(malformed.json().userDescription, 'The selected environment is not a valid environment id')
  const notAdmin = await server.inject({
    method: 'GET',
    url: '/admin',
    headers: { authorization: `Bearer ${sign(member._id)}`, 'environment-id': 'acme' },
  })
  t.equal(notAdmin.statusCode, 403)
  t.equal(notAdmin.json().description, 'This call needs an administrator of the environment')
  t.equal(notAdmin.json().userDescription, 'You are not allowed to do this')
})
