import t from 'tap'
import { build, ADMIN, ENV_A, headers, type Built } from '../helper.js'

/** Renewable sign-ins: open with the password, renew with the refresh token alone, end on the server. */

const open = (built: Built, password = ADMIN.password) =>
  built.call({ method: 'POST', url: '/auth/sessions', payload: { username: ADMIN.username, password } })
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
