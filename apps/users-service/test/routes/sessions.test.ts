import t from 'tap'
import { COLLECTIONS } from '../../src/collections.js'
import { createUsersAdmin } from '../../src/domain/admin.js'
import { build, replica, ADMIN, ENV_A, ENV_B, headers, type Built } from '../helper.js'

/** Renewable sign-ins: open with the password, renew with the refresh token alone, end on the server. */

const open = (built: Built, password = ADMIN.password, username = ADMIN.username, userAgent = 'test-agent/1.0') =>
  built.call({
    method: 'POST',
    url: '/auth/sessions',
    payload: { username, password },
    headers: { 'user-agent': userAgent },
  })
const refresh = (built: Built, refreshToken: string, prefix = '/auth') =>
  built.call({ method: 'POST', url: `${prefix}/sessions/refresh`, payload: { refreshToken } })
const listUsers = (built: Built, token: string) =>
  built.call({ method: 'GET', url: '/api/v2/users', headers: headers(token, ENV_A) })

t.test('a session renews with its refresh token, once per token', async (t) => {
  const built = await build(t)
  const opened = await open(built)
  t.equal(opened.statusCode, 200)
  const first = opened.json().data
  t.match(first, { tokenType: 'Bearer', userId: built.adminId, refreshExpiresIn: 14 * 86_400 })
  t.equal((await listUsers(built, first.accessToken)).statusCode, 200, 'the access token works')

  const renewed = await refresh(built, first.refreshToken, '/api/v2/auth')
  t.equal(renewed.statusCode, 200, 'also under /api/v2/auth')
  const second = renewed.json().data
  t.not(second.refreshToken, first.refreshToken, 'the refresh token rotates')
  t.equal((await listUsers(built, second.accessToken)).statusCode, 200)

  const reused = await refresh(built, first.refreshToken)
  t.equal(reused.statusCode, 401, 'a used refresh token is refused')
  t.equal(reused.json().error, 'unauthorized')
  t.equal((await refresh(built, second.refreshToken)).statusCode, 200, 'the latest one still works')
})

t.test('a wrong password opens nothing; a stranger cannot renew or guess', async (t) => {
  const built = await build(t)
  const wrong = await open(built, 'not the password')
  t.equal(wrong.statusCode, 401)
  t.notOk(wrong.json().data)
  t.equal((await refresh(built, 'A'.repeat(43))).statusCode, 401)
  const malformed = await refresh(built, '../../etc/passwd')
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error, 'validation_error')
})

t.test('logout ends the session; signing out everywhere ends every session', async (t) => {
  const built = await build(t)
  const a = (await open(built)).json().data
  const b = (await open(built)).json().data

  const out = await built.call({
    method: 'POST',
    url: '/auth/sessions/logout',
    payload: { refreshToken: a.refreshToken },
  })
  t.equal(out.statusCode, 200)
  t.same(out.json().data, { signedOut: true })
  t.equal((await refresh(built, a.refreshToken)).statusCode, 401, 'the ended session cannot renew')
  const again = await built.call({
    method: 'POST',
    url: '/auth/sessions/logout',
    payload: { refreshToken: a.refreshToken },
  })
  t.equal(again.statusCode, 200, 'signing out twice is no error')
  t.equal((await refresh(built, b.refreshToken)).statusCode, 200, 'another session goes on')

  const c = (await open(built)).json().data
  const everywhere = await built.call({
    method: 'POST',
    url: '/auth/sign-out-everywhere',
    headers: { authorization: `Bearer ${c.accessToken}` },
  })
  t.equal(everywhere.statusCode, 200)
  t.equal((await refresh(built, c.refreshToken)).statusCode, 401, 'sign-out-everywhere ends renewals too')
})

t.test('an unused session lapses after 14 days', async (t) => {
  const built = await build(t)
  const { refreshToken } = (await open(built)).json().data
  built.clock.now += 14 * 86_400_000
  const late = await refresh(built, refreshToken)
  t.equal(late.statusCode, 401)
  t.equal(late.json().userDescription, 'Your session ended: sign in again')
})

const listSessions = (built: Built, token: string) =>
  built.call({ method: 'GET', url: '/auth/sessions', headers: headers(token) })
const endSession = (built: Built, token: string, sessionId: string, prefix = '/auth') =>
  built.call({ method: 'DELETE', url: `${prefix}/sessions/${sessionId}`, headers: headers(token) })
const logout = (built: Built, refreshToken: string) =>
  built.call({ method: 'POST', url: '/auth/sessions/logout', payload: { refreshToken } })

/** A member of `environments` with a password, created by the administrator through the API. */
async function member(built: Built, username: string, environments = [ENV_A]): Promise<string> {
  let userId = ''
  for (const environmentId of environments) {
    const created = await built.call({
      method: userId ? 'PATCH' : 'POST',
      url: userId ? `/api/v2/users/${userId}` : '/api/v2/users',
      headers: headers(built.token(built.adminId), environmentId),
      payload: userId ? {} : { username, password: `${username} password` },
    })
    userId ||= created.json().data[0]._id
  }
  return userId
}
const openAs = (built: Built, username: string) => open(built, `${username} password`, username)

t.test('signing out refuses the access token in hand at once, not at its expiry', async (t) => {
  const built = await build(t)
  const first = (await open(built)).json().data
  t.equal((await listUsers(built, first.accessToken)).statusCode, 200)
  const renewed = (await refresh(built, first.refreshToken)).json().data
  t.equal((await listUsers(built, first.accessToken)).statusCode, 200, "a renewal keeps the session's older token")

  t.equal((await logout(built, renewed.refreshToken)).statusCode, 200)
  for (const [label, token] of [
    ['the first access token', first.accessToken],
    ['the renewed one', renewed.accessToken],
  ]) {
    const refused = await listUsers(built, token)
    t.equal(refused.statusCode, 401, label)
    t.match(refused.json(), {
      status: 'error',
      error: 'unauthorized',
      description: 'The session of this access token was signed out, ended or expired',
    })
  }
  const login = await built.call({ method: 'POST', url: '/auth/login', payload: ADMIN })
  t.equal((await listUsers(built, login.json().data.accessToken)).statusCode, 200, '/auth/login tokens are not tied')
})

t.test('a signed-out token is refused by another replica at once', async (t) => {
  const built = await build(t)
  const other = await replica(t, built)
  const session = (await open(built)).json().data
  const onReplica = () =>
    other.inject({ method: 'GET', url: '/api/v2/users', headers: headers(session.accessToken, ENV_A) })
  t.equal((await onReplica()).statusCode, 200, 'the replica lets it in (and has verified it once)')
  t.equal((await logout(built, session.refreshToken)).statusCode, 200, 'signed out on the first replica')
  const refused = await onReplica()
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().error, 'unauthorized')

  const second = (await open(built)).json().data
  const ended = await other.inject({
    method: 'DELETE',
    url: `/auth/sessions/${(await listSessions(built, second.accessToken)).json().data[0]._id}`,
    headers: headers(second.accessToken),
  })
  t.equal(ended.statusCode, 200, 'ended on the replica')
  t.equal((await listUsers(built, second.accessToken)).statusCode, 401, 'refused on the first one')
})

t.test("GET /auth/sessions lists the caller's sessions, its own flagged current", async (t) => {
  const built = await build(t)
  const phone = (await open(built, ADMIN.password, ADMIN.username, 'Phone/2.0')).json().data
  built.clock.now += 1000
  const laptop = (await open(built, ADMIN.password, ADMIN.username, 'x'.repeat(1000))).json().data
  await member(built, 'bob')
  await openAs(built, 'bob')

  const listed = await listSessions(built, phone.accessToken)
  t.equal(listed.statusCode, 200)
  const sessions = listed.json().data
  t.equal(sessions.length, 2, "another user's session is not listed")
  t.match(sessions, [
    { userAgent: 'x'.repeat(256), current: false },
    { userAgent: 'Phone/2.0', current: true, _createdOn: '2030-01-01T00:00:10.000Z' },
  ])
  t.same(Object.keys(sessions[0]).sort(), ['_createdOn', '_id', 'current', 'expiresOn', 'lastUsedOn', 'userAgent'])
  t.equal(sessions[1].expiresOn, '2030-01-15T00:00:10.000Z', '14 days after its last renewal')
  t.notOk(JSON.stringify(listed.json()).includes(phone.refreshToken), 'never a refresh token')

  const fromLaptop = (await listSessions(built, laptop.accessToken)).json().data
  t.same(
    fromLaptop.map((each: { current: boolean }) => each.current),
    [true, false],
  )
  const login = await built.call({ method: 'POST', url: '/auth/login', payload: ADMIN })
  const plain = (await listSessions(built, login.json().data.accessToken)).json().data
  t.equal(plain.length, 2, 'a /auth/login token lists them too')
  t.notOk(
    plain.some((each: { current: boolean }) => each.current),
    'none current',
  )
})

t.test('who may list or end sessions: not a stranger, not a long-lived token, not a script', async (t) => {
  const built = await build(t)
  const session = (await open(built)).json().data
  const stranger = await built.call({ method: 'GET', url: '/auth/sessions' })
  t.equal(stranger.statusCode, 401)
  t.equal(stranger.json().error, 'unauthorized')
  const minted = await built.call({
    method: 'POST',
    url: `/api/v2/users/${built.adminId}/long-lived-tokens`,
    headers: headers(session.accessToken, ENV_A),
    payload: { name: 'script' },
  })
  const longLived = minted.json().data[0].token
  for (const response of [
    await listSessions(built, longLived),
    await endSession(built, longLived, (await listSessions(built, session.accessToken)).json().data[0]._id),
  ]) {
    t.equal(response.statusCode, 403, 'a long-lived token')
    t.equal(response.json().error, 'forbidden')
  }
  t.equal((await listUsers(built, session.accessToken)).statusCode, 200, 'the session goes on')
})

t.test("DELETE /auth/sessions/{id} ends one of the caller's own sessions", async (t) => {
  const built = await build(t)
  const kept = (await open(built)).json().data
  const lost = (await open(built, ADMIN.password, ADMIN.username, 'Lost/1.0')).json().data
  const [lostView] = (await listSessions(built, kept.accessToken))
    .json()
    .data.filter((each: { userAgent: string }) => each.userAgent === 'Lost/1.0')

  const ended = await endSession(built, kept.accessToken, lostView._id, '/api/v2/auth')
  t.equal(ended.statusCode, 200, 'also under /api/v2/auth')
  t.same(ended.json().data, { _id: lostView._id, signedOut: true })
  t.equal((await listUsers(built, lost.accessToken)).statusCode, 401, 'its access token is refused')
  t.equal((await refresh(built, lost.refreshToken)).statusCode, 401, 'it cannot renew')
  t.equal((await listUsers(built, kept.accessToken)).statusCode, 200, 'the other goes on')
  t.equal((await listSessions(built, kept.accessToken)).json().data.length, 1)

  const again = await endSession(built, kept.accessToken, lostView._id)
  t.equal(again.statusCode, 404, 'ending it twice')
  t.match(again.json(), { error: 'not_found', userDescription: 'This session does not exist or already ended' })

  const [keptView] = (await listSessions(built, kept.accessToken)).json().data
  t.equal((await endSession(built, kept.accessToken, keptView._id)).statusCode, 200, 'its own, current session')
  t.equal((await listUsers(built, kept.accessToken)).statusCode, 401, 'signed out')
})

t.test("a hostile member cannot see or end anyone else's session", async (t) => {
  const built = await build(t)
  const admin = (await open(built)).json().data
  const [adminSession] = (await listSessions(built, admin.accessToken)).json().data
  await member(built, 'mallory')
  const mallory = (await openAs(built, 'mallory')).json().data

  const listed = (await listSessions(built, mallory.accessToken)).json().data
  t.equal(listed.length, 1, 'only her own')
  t.not(listed[0]._id, adminSession._id)
  for (const id of [adminSession._id, '../admin', '{"$ne":null}', '%24ne']) {
    const refused = await endSession(built, mallory.accessToken, encodeURIComponent(id))
    t.equal(refused.statusCode, 404, `${id}: as unknown as a made-up id`)
    t.equal(refused.json().error, 'not_found')
  }
  const logoutWithId = await logout(built, adminSession._id.replaceAll('-', ''))
  t.equal(logoutWithId.statusCode, 200, 'logout by a session id (not its refresh token) is the usual answer...')
  t.equal((await listUsers(built, admin.accessToken)).statusCode, 200, '...and ends nothing')
  t.equal(await COLLECTIONS.sessions.in(built.resources.store).count({ _id: adminSession._id }), 1)
})

t.test('lapsed sessions are swept; a user keeps 50 at most', async (t) => {
  const built = await build(t)
  const { store } = built.resources
  const sessions = COLLECTIONS.sessions.in(store)
  const lapsing = (await open(built)).json().data
  built.clock.now += 13 * 86_400_000
  const fresh = (await open(built)).json().data
  built.clock.now += 86_400_000
  t.match(await built.service.housekeeping.run(), { sessions: 1 }, 'the one unrenewed for 14 days')
  t.equal((await listUsers(built, lapsing.accessToken)).statusCode, 401, 'its access token is refused')
  t.equal((await listSessions(built, fresh.accessToken)).json().data.length, 1)
  t.match(await built.service.housekeeping.run(), { sessions: 0 })

  // 49 more, renewed before the fresh one: opening one more ends the one renewed longest ago.
  for (let i = 0; i < 49; i++) {
    await sessions.insertOne({
      _id: `seeded-${String(i).padStart(2, '0')}`,
      userId: built.adminId,
      tokenHash: `${i}`.padStart(64, '0'),
      openedAt: Date.now(),
      expiresAt: built.clock.now + 86_400_000 + i,
    })
  }
  await open(built)
  t.equal(await sessions.count({ userId: built.adminId }), 50)
  t.equal(await sessions.count({ _id: 'seeded-00' }), 0, 'the one renewed longest ago went')
  t.equal((await listSessions(built, fresh.accessToken)).json().data.length, 50, 'the list is bounded')
})

t.test('changing or resetting the password, or resetting 2FA, ends every session', async (t) => {
  const built = await build(t)
  const sessions = COLLECTIONS.sessions.in(built.resources.store)
  const userId = await member(built, 'carol')
  const count = () => sessions.count({ userId })

  const a = (await openAs(built, 'carol')).json().data
  const b = (await openAs(built, 'carol')).json().data
  const changed = await built.call({
    method: 'POST',
    url: '/auth/password',
    headers: headers(a.accessToken),
    payload: { password: 'carol password', newPassword: 'carol password 2' },
  })
  t.equal(changed.statusCode, 200)
  t.equal(await count(), 0, 'changing the password')
  t.equal((await refresh(built, b.refreshToken)).statusCode, 401)
  t.equal((await listSessions(built, changed.json().data.accessToken)).json().data.length, 0)

  await open(built, 'carol password 2', 'carol')
  const reset2fa = await built.call({
    method: 'POST',
    url: '/auth/reset-2FA',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { userId },
  })
  t.equal(reset2fa.statusCode, 200)
  t.equal(await count(), 0, 'resetting 2FA')

  const c = (await open(built, 'carol password 2', 'carol')).json().data
  const everywhere = await built.call({
    method: 'POST',
    url: '/auth/sign-out-everywhere',
    headers: headers(c.accessToken),
  })
  t.equal(everywhere.statusCode, 200)
  t.equal(await count(), 0, 'signing out everywhere')

  await open(built, 'carol password 2', 'carol')
  const operator = createUsersAdmin(built.resources.store, 'operator')
  t.equal(await operator.resetPassword('carol', 'carol password 3'), true)
  t.equal(await count(), 0, "the operator's password reset")
})

t.test('deactivating a user in its last environment ends its sessions; elsewhere they go on', async (t) => {
  const built = await build(t)
  const patch = (userId: string, environmentId: string, payload: object) =>
    built.call({
      method: 'PATCH',
      url: `/api/v2/users/${userId}`,
      headers: headers(built.token(built.adminId), environmentId),
      payload,
    })
  const dave = await member(built, 'dave', [ENV_A, ENV_B])
  const session = (await openAs(built, 'dave')).json().data
  const onB = () => built.call({ method: 'GET', url: '/api/v2/users', headers: headers(session.accessToken, ENV_B) })

  t.equal((await patch(dave, ENV_A, { active: false })).statusCode, 200)
  t.equal((await onB()).statusCode, 200, 'still active in env-b: signed in there')
  t.equal((await listUsers(built, session.accessToken)).statusCode, 403, 'env-a is closed to it')

  t.equal((await patch(dave, ENV_B, { active: false })).statusCode, 200)
  t.equal((await onB()).statusCode, 401, 'deactivated everywhere: signed out')
  t.equal((await refresh(built, session.refreshToken)).statusCode, 401)
  t.equal(await COLLECTIONS.sessions.in(built.resources.store).count({ userId: dave }), 0)
})
