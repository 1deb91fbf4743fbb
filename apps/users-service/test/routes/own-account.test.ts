import t from 'tap'
import { Secret, TOTP } from 'otpauth'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, headers, type Built } from '../helper.js'

/** The signed-in user's own security: password, 2FA off, recovery codes, signing out everywhere. */

const PASSWORD = 'carol password'

async function carol(built: Built): Promise<{ userId: string; session: string }> {
  const created = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'carol', password: PASSWORD, email: 'carol@example.com' },
  })
  const userId: string = created.json().data[0]._id
  const session: string = (await login(built, PASSWORD)).json().data.accessToken
  return { userId, session }
}

const login = (built: Built, password: string, code?: string) =>
  built.call({
    method: 'POST',
    url: '/auth/login',
    payload: { username: 'carol', password, ...(code === undefined ? {} : { code }) },
  })

const post = (built: Built, url: string, token: string, payload?: Record<string, string>) =>
  built.call({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload })

t.test('changing the password needs the current one; other sessions and long-lived tokens end', async (t) => {
  const built = await build(t, { QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: '2' })
  const { userId, session } = await carol(built)
  const minted = await built.call({
    method: 'POST',
    url: `/api/v2/users/${userId}/long-lived-tokens`,
    headers: headers(session, ENV_A),
  })
  const longLived: string = minted.json().data[0].token

  const viaToken = await post(built, '/auth/password', longLived, { password: PASSWORD, newPassword: 'x'.repeat(12) })
  t.equal(viaToken.statusCode, 403, 'not with a long-lived token')
  t.equal(viaToken.json().error, 'forbidden')
  const missing = await post(built, '/auth/password', session, { newPassword: 'a new password' })
  t.equal(missing.statusCode, 400)
  t.equal(missing.json().error, 'validation_error')
  const wrong = await post(built, '/auth/password', session, { password: 'guess', newPassword: 'a new password' })
  t.equal(wrong.statusCode, 403)
  t.equal(wrong.json().userDescription, 'The current password is not correct')
  await post(built, '/auth/password', session, { password: 'guess 2', newPassword: 'a new password' })
  const throttled = await post(built, '/auth/password', session, { password: PASSWORD, newPassword: 'a new password' })
  t.equal(throttled.statusCode, 429, 'guesses of the current password share the login budget')
  t.equal(throttled.headers['retry-after'], '900')
  built.clock.now += 900_000

  const changed = await post(built, '/auth/password', session, { password: PASSWORD, newPassword: 'a new password' })
  t.equal(changed.statusCode, 200)
  t.match(changed.json().data, { tokenType: 'Bearer', userId, revokedLongLivedTokens: 1, accessToken: String })
  const fresh: string = changed.json().data.accessToken
  t.equal((await post(built, '/auth/sign-out-everywhere', session)).statusCode, 401, 'the old session ended')
  const me = await built.call({ method: 'GET', url: `/api/v2/users/${userId}`, headers: headers(fresh, ENV_A) })
  t.equal(me.statusCode, 200, 'the session that changed it goes on with the token it got')
  const withLongLived = await built.call({ method: 'GET', url: '/api/v2/users', headers: headers(longLived, ENV_A) })
  t.equal(withLongLived.statusCode, 401, 'long-lived tokens were revoked')
  t.equal((await login(built, PASSWORD)).statusCode, 401)
  t.equal((await login(built, 'a new password')).statusCode, 200)
})

t.test('2FA off and new recovery codes need the current password; sign out everywhere', async (t) => {
  const built = await build(t)
  const { userId, session } = await carol(built)
  const setup = await post(built, '/auth/2fa/setup', session)
  const { secret } = setup.json().data
  const code = () => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: built.clock.now })
  const enabled = await post(built, '/auth/2fa/enable', session, { code: code(), password: PASSWORD })
  t.equal(enabled.statusCode, 200)
  const [firstCode] = enabled.json().data.recoveryCodes as string[]

  const offWithout = await post(built, '/auth/2fa/disable', session, { password: 'wrong' })
  t.equal(offWithout.statusCode, 403, 'a stolen access token cannot turn 2FA off')
  const regenerated = await post(built, '/auth/2fa/recovery-codes', session, { password: PASSWORD })
  t.equal(regenerated.statusCode, 200)
  t.equal(regenerated.json().data.recoveryCodes.length, 10)
  const old = await login(built, PASSWORD, firstCode)
  t.equal(old.statusCode, 401, 'the old recovery codes no longer work')
  t.equal(old.json().error, 'two_factor_required')
  const fresh = await login(built, PASSWORD, regenerated.json().data.recoveryCodes[0])
  t.equal(fresh.statusCode, 200, 'the new ones do')

  const off = await post(built, '/auth/2fa/disable', session, { password: PASSWORD })
  t.equal(off.statusCode, 200)
  t.same(off.json(), { status: 'ok', data: { twoFactorEnabled: false } })
  const stored = await COLLECTIONS.users.in(built.resources.store).findOne({ _id: userId })
  t.notOk(stored?.authentication.totpSecret)
  t.notOk(stored?.authentication.recoveryCodeHashes)
  t.equal((await login(built, PASSWORD)).statusCode, 200, 'no code needed any more')
  const noCodes = await post(built, '/auth/2fa/recovery-codes', session, { password: PASSWORD })
  t.equal(noCodes.statusCode, 400, 'no recovery codes without 2FA')
  t.equal(noCodes.json().error, 'validation_error')

  const other = (await login(built, PASSWORD)).json().data.accessToken
  const out = await post(built, '/auth/sign-out-everywhere', session)
  t.equal(out.statusCode, 200)
  t.same(out.json(), { status: 'ok', data: { signedOut: true } })
  for (const token of [session, other]) {
    const refused = await built.call({ method: 'GET', url: '/api/v2/users', headers: headers(token, ENV_A) })
    t.equal(refused.statusCode, 401, 'every session ended')
  }
  t.equal((await post(built, '/auth/sign-out-everywhere', 'Bearer-less-garbage-token')).statusCode, 401)
})
