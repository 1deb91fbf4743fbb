import t, { type Test } from 'tap'
import type { FastifyRequest } from 'fastify'
import { createServer } from '@quire/service-kit'
import { accessToken, createEnvironment, createUser, headers, testResources } from '@quire/testing'
import { hashToken, IDENTITY_COLLECTIONS, recordsIdentity } from '@quire/identity'
import { authPlugin, delegate, stillValid } from '../src/index.js'

/** Access tokens of a renewable sign-in carry its session (`sid`); the session must still be live at every call. */

async function build(t: Test) {
  const resources = await testResources(t)
  const server = createServer({ logLevel: 'silent' })
  await server.register(authPlugin, {
    keys: { publicKey: resources.keys.publicKey },
    identity: recordsIdentity(resources.store),
  })
  /** The requests let in, for `stillValid` to judge after their answer. */
  const seen: FastifyRequest[] = []
  const keep = async (request: FastifyRequest) => {
    seen.push(request)
    return request.caller
  }
  server.get('/whoami', { onRequest: server.auth.authenticate }, keep)
  server.get('/env', { onRequest: server.auth.requireEnvironment }, keep)
  server.get('/open', async (request) => stillValid(request))
  t.teardown(() => server.close())
  await createEnvironment(resources.store, 'acme')
  const sessions = IDENTITY_COLLECTIONS.sessions.in(resources.store)
  const openSession = async (userId: string, _id: string, expiresAt = Date.now() + 60_000) => {
    await sessions.insertOne({ _id, userId, expiresAt })
    return accessToken(resources.keys.privateKey, userId, { sessionId: _id })
  }
  return { server, store: resources.store, keys: resources.keys, sessions, openSession, seen }
}

t.test('a token of a live session works; once its session ends it is refused at once', async (t) => {
  const { server, store, sessions, openSession } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const token = await openSession(user._id, 'session-1')
  const whoami = () => server.inject({ method: 'GET', url: '/whoami', headers: headers(token) })

  const ok = await whoami()
  t.equal(ok.statusCode, 200)
  t.match(ok.json(), { userId: user._id, via: 'access-token', sessionId: 'session-1' })
  const scoped = await server.inject({ method: 'GET', url: '/env', headers: headers(token, 'acme') })
  t.match(scoped.json(), { environmentId: 'acme', sessionId: 'session-1' }, 'the scope carries it too')

  await sessions.deleteOne({ _id: 'session-1' })
  const ended = await whoami()
  t.equal(ended.statusCode, 401, 'the token verified and cached before is refused all the same')
  t.match(ended.json(), {
    status: 'error',
    error: 'unauthorized',
    description: 'The session of this access token was signed out, ended or expired',
    userDescription: 'Please sign in again',
  })
})

t.test('a lapsed session, or one of another user, does not let its token in', async (t) => {
  const { server, store, openSession, keys } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const other = await createUser(store, { environments: { acme: {} } })
  const lapsed = await openSession(user._id, 'lapsed', Date.now() - 1)
  t.equal((await server.inject({ method: 'GET', url: '/whoami', headers: headers(lapsed) })).statusCode, 401)

  await openSession(other._id, 'others')
  const borrowed = accessToken(keys.privateKey, user._id, { sessionId: 'others' })
  const res = await server.inject({ method: 'GET', url: '/whoami', headers: headers(borrowed) })
  t.equal(res.statusCode, 401, "a token naming another user's session")
})

t.test('tokens without a session keep their rules: login tokens, long-lived tokens, delegations', async (t) => {
  const { server, store, keys } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const plain = await server.inject({
    method: 'GET',
    url: '/whoami',
    headers: headers(accessToken(keys.privateKey, user._id)),
  })
  t.equal(plain.statusCode, 200)
  t.notOk('sessionId' in plain.json(), 'no session to flag')

  const secret = 'qlt_session_free_0123456789abcdefgh'
  await IDENTITY_COLLECTIONS.longLivedTokens
    .in(store)
    .insertOne({ _id: 'llt', userId: user._id, tokenHash: hashToken(secret), expiresOn: null })
  t.equal((await server.inject({ method: 'GET', url: '/env', headers: headers(secret, 'acme') })).statusCode, 200)

  const delegation = delegate({ userId: user._id, environmentId: 'acme', depth: 1 })
  t.teardown(() => delegation.release())
  const run = await server.inject({ method: 'GET', url: '/env', headers: headers(delegation.token, 'acme') })
  t.equal(run.statusCode, 200)
})

t.test('stillValid: the caller let in, judged again now', async (t) => {
  const { server, store, sessions, openSession, seen } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  const users = IDENTITY_COLLECTIONS.users.in(store)

  const token = await openSession(user._id, 'stream')
  await server.inject({ method: 'GET', url: '/whoami', headers: headers(token) })
  const [streaming] = seen.splice(0)
  if (!streaming) throw new Error('the request was not let in')
  t.equal(await stillValid(streaming), true, 'nothing changed')
  await sessions.deleteOne({ _id: 'stream' })
  t.equal(await stillValid(streaming), false, 'its session was signed out')

  const second = await openSession(user._id, 'member')
  await server.inject({ method: 'GET', url: '/env', headers: headers(second, 'acme') })
  const [member] = seen.splice(0)
  if (!member) throw new Error('the request was not let in')
  t.equal(await stillValid(member), true)
  await users.updateOne({ _id: user._id }, { $set: { 'profile.environments.acme.active': false } })
  t.equal(await stillValid(member), false, 'deactivated in the environment it streams from')
  await users.updateOne({ _id: user._id }, { $set: { 'profile.environments.acme.active': true } })
  t.equal(await stillValid(member), true, 'active again')
  await users.updateOne({ _id: user._id }, { $set: { 'authentication.sessionsValidAfter': Date.now() + 1000 } })
  t.equal(await stillValid(member), false, 'signed out everywhere')
  await users.deleteOne({ _id: user._id })
  t.equal(await stillValid(member), false, 'the user is gone')

  const unguarded = await server.inject({ method: 'GET', url: '/open' })
  t.equal(unguarded.statusCode, 500, 'a request no hook let in is a wiring error, not a yes')
})

t.test('stillValid rejects when the store cannot be read: a fault is not a refusal', async (t) => {
  const { server, store, openSession, seen } = await build(t)
  const user = await createUser(store, { environments: { acme: {} } })
  await server.inject({ method: 'GET', url: '/whoami', headers: headers(await openSession(user._id, 's')) })
  const [request] = seen
  if (!request) throw new Error('the request was not let in')
  await store.close()
  await t.rejects(stillValid(request))
})
