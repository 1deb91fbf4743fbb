import t, { type Test } from 'tap'
import { createServer } from '@quire/service-kit'
import { createEnvironment, createUser, testResources } from '@quire/testing'
import { IDENTITY_COLLECTIONS, recordsIdentity } from '@quire/identity'
import { authPlugin, delegate } from '../src/index.js'

async function build(t: Test, lines: string[] = []) {
  const resources = await testResources(t)
  const server = createServer({ logLevel: 'trace', logStream: { write: (line) => lines.push(line) } })
  await server.register(authPlugin, {
    keys: { publicKey: resources.keys.publicKey },
    identity: recordsIdentity(resources.store),
  })
  // The run's signal, as whether it is live (an AbortSignal has no JSON).
  server.get('/env', { onRequest: server.auth.requireEnvironment }, async ({ scope: { signal, ...scope } }) => ({
    ...scope,
    running: signal?.aborted === false,
  }))
  server.get('/whoami', { onRequest: server.auth.authenticate }, async (request) => request.caller)
  // A failing request is logged with its headers: the redaction must cover the handle.
  server.get('/fail', { onRequest: server.auth.requireEnvironment }, async (request) => {
    request.log.error({ req: request }, 'failing on purpose')
    throw new Error('boom')
  })
  t.teardown(() => server.close())
  await createEnvironment(resources.store, 'acme')
  await createEnvironment(resources.store, 'globex')
  return { server, ...resources }
}

t.test('a delegation acts as its user, in its environment alone, at its depth, until released', async (t) => {
  const lines: string[] = []
  const { server, store } = await build(t, lines)
  const user = await createUser(store, { environments: { acme: { groups: ['sales'] }, globex: {} } })
  const delegation = delegate({ userId: user._id, environmentId: 'acme', depth: 2 })
  t.match(delegation.headers.authorization, /^Delegated [\w-]{43}$/)
  t.equal(delegation.headers['environment-id'], 'acme')

  const own = await server.inject({ method: 'GET', url: '/env', headers: delegation.headers })
  t.equal(own.statusCode, 200)
  t.same(own.json(), {
    userId: user._id,
    via: 'action',
    superAdministrator: false,
    actionDepth: 2,
    environmentId: 'acme',
    administrator: false,
    groups: ['sales'],
    environmentIds: ['acme'],
    running: true,
  })

  // Its user may use globex, the delegation may not.
  const other = await server.inject({
    method: 'GET',
    url: '/env',
    headers: { ...delegation.headers, 'environment-id': 'globex' },
  })
  t.equal(other.statusCode, 403)
  t.equal(other.json().error, 'forbidden')

  // Routes outside an environment are not a script's.
  const outside = await server.inject({ method: 'GET', url: '/whoami', headers: delegation.headers })
  t.equal(outside.statusCode, 403)

  t.equal((await server.inject({ method: 'GET', url: '/fail', headers: delegation.headers })).statusCode, 500)
  const handle = delegation.headers.authorization.split(' ')[1] ?? ''
  t.ok(lines.length > 0 && lines.every((line) => !line.includes(handle)), 'the handle is never logged')

  delegation.release()
  t.equal(delegation.signal.aborted, true, 'the calls made with it learn that its run ended')
  const released = await server.inject({ method: 'GET', url: '/env', headers: delegation.headers })
  t.equal(released.statusCode, 401)
  t.equal(released.json().error, 'unauthorized')
})

t.test('a delegation ends with its user: removed, or signed out everywhere after it was made', async (t) => {
  const { server, store } = await build(t)
  const users = IDENTITY_COLLECTIONS.users.in(store)
  const user = await createUser(store, { environments: { acme: {} } })
  const delegation = delegate({ userId: user._id, environmentId: 'acme', depth: 1 })
  t.teardown(() => delegation.release())
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: delegation.headers })).statusCode, 200)
  await users.updateOne({ _id: user._id }, { $set: { 'authentication.sessionsValidAfter': Date.now() + 1 } })
  const ended = await server.inject({ method: 'GET', url: '/env', headers: delegation.headers })
  t.equal(ended.statusCode, 401)

  const gone = await createUser(store, { environments: { acme: {} } })
  const orphan = delegate({ userId: gone._id, environmentId: 'acme', depth: 1 })
  t.teardown(() => orphan.release())
  await users.deleteOne({ _id: gone._id })
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: orphan.headers })).statusCode, 401)

  const forged = await server.inject({
    method: 'GET',
    url: '/env',
    headers: { authorization: `Delegated ${'A'.repeat(43)}`, 'environment-id': 'acme' },
  })
  t.equal(forged.statusCode, 401)
})

t.test('a super-administrator’s delegation: administrator of the run’s environment, nothing more', async (t) => {
  const { server, store } = await build(t)
  server.get(
    '/super',
    { onRequest: [server.auth.requireEnvironment, server.auth.requireSuperAdministrator] },
    () => 'ok',
  )
  const member = await createUser(store, { superAdministrator: true, environments: { acme: { groups: ['sales'] } } })
  const outsider = await createUser(store, { superAdministrator: true })
  for (const [label, user, groups] of [
    ['a member of acme', member, ['sales']],
    ['a member of no environment', outsider, []],
  ] as const) {
    const delegation = delegate({ userId: user._id, environmentId: 'acme', depth: 1 })
    t.teardown(() => delegation.release())
    const own = await server.inject({ method: 'GET', url: '/env', headers: delegation.headers })
    t.equal(own.statusCode, 200, label)
    t.match(own.json(), { via: 'action', superAdministrator: false, administrator: true, groups }, label)
    const superRoute = await server.inject({ method: 'GET', url: '/super', headers: delegation.headers })
    t.equal(superRoute.statusCode, 403, `${label}: no super-administrator route`)
    const other = await server.inject({
      method: 'GET',
      url: '/env',
      headers: { ...delegation.headers, 'environment-id': 'globex' },
    })
    t.equal(other.statusCode, 403, `${label}: no other environment, which its user administers`)
  }
})

t.test('a live handle from a socket is 401 with the envelope, on every route; in process it works', async (t) => {
  const { server, store } = await build(t)
  server.get('/open', async () => 'open')
  const user = await createUser(store, { environments: { acme: {} } })
  const delegation = delegate({ userId: user._id, environmentId: 'acme', depth: 1 })
  t.teardown(() => delegation.release())
  const address = await server.listen({ port: 0, host: '127.0.0.1' })
  for (const url of ['/env', '/whoami', '/open']) {
    const res = await fetch(new URL(url, address), { headers: delegation.headers })
    t.equal(res.status, 401, url)
    t.match(await res.json(), { status: 'error', error: 'unauthorized', description: /Delegated/ }, url)
  }
  // Headers a client could send to pass for the process itself change nothing.
  const spoofed = await fetch(new URL('/env', address), {
    headers: { ...delegation.headers, 'user-agent': 'lightMyRequest', 'x-forwarded-for': '127.0.0.1' },
  })
  t.equal(spoofed.status, 401)
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: delegation.headers })).statusCode, 200)
  t.equal((await fetch(new URL('/open', address))).status, 200, 'the same route without it')
})

t.test('a run token works from a socket with the delegation’s rights, and only while its run lasts', async (t) => {
  const { server, store } = await build(t)
  server.get(
    '/super',
    { onRequest: [server.auth.requireEnvironment, server.auth.requireSuperAdministrator] },
    () => 'ok',
  )
  server.post('/credentials', { onRequest: [server.auth.refuseDelegation, server.auth.authenticate] }, () => 'ok')
  const superAdministrator = await createUser(store, { superAdministrator: true, environments: { acme: {} } })
  const delegation = delegate({ userId: superAdministrator._id, environmentId: 'acme', depth: 1, ttlMs: 60_000 })
  t.teardown(() => delegation.release())
  t.match(delegation.token, /^qrun\.[\w-]+\.[\w-]{43}$/)
  const address = await server.listen({ port: 0, host: '127.0.0.1' })
  const call = (url: string, token: string, environmentId = 'acme', method = 'GET') =>
    fetch(new URL(url, address), {
      method,
      headers: { authorization: `Bearer ${token}`, 'environment-id': environmentId },
    })

  const own = await call('/env', delegation.token)
  t.equal(own.status, 200)
  t.match(await own.json(), {
    userId: superAdministrator._id,
    via: 'action',
    superAdministrator: false,
    actionDepth: 1,
  })
  t.equal((await call('/env', delegation.token, 'globex')).status, 403, 'no other environment')
  t.equal((await call('/super', delegation.token)).status, 403, 'no super-administrator route')
  t.equal((await call('/whoami', delegation.token)).status, 403, 'no route outside its environment')
  t.equal((await call('/credentials', delegation.token, 'acme', 'POST')).status, 403, 'no credentials')

  const [payload, signature] = delegation.token.split('.').slice(1)
  const forged = `qrun.${payload}.${signature?.startsWith('A') ? 'B' : 'A'}${signature?.slice(1)}`
  t.equal((await call('/env', forged)).status, 401, 'a signature that does not hold')

  delegation.release()
  const ended = await call('/env', delegation.token)
  t.equal(ended.status, 401, 'refused once its run has ended')
  t.match(await ended.json(), { status: 'error', error: 'unauthorized' })

  const expired = delegate({ userId: superAdministrator._id, environmentId: 'acme', depth: 1, ttlMs: 0 })
  t.teardown(() => expired.release())
  t.equal((await call('/env', expired.token)).status, 401, 'refused past its wall time, even unreleased')
})
