import t from 'tap'
import { Secret, TOTP } from 'otpauth'
import { USER_DESCRIPTIONS } from '@quire/contracts'
import { COLLECTIONS } from '../../src/collections.js'
import { ADMIN, build, ENV_A, ENV_B, headers, type Built } from '../helper.js'

const PASSWORD = 'alice password'

/** A user created through the API, so it has a password and a global e-mail address. */
async function alice(built: Built, environments = [ENV_A]): Promise<string> {
  const [first, ...others] = environments
  const created = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), first),
    payload: { username: 'alice', password: PASSWORD, email: 'alice@example.com' },
  })
  const userId: string = created.json().data[0]._id
  for (const environmentId of others) {
    await built.call({
      method: 'PATCH',
      url: `/api/v2/users/${userId}`,
      headers: headers(built.token(built.adminId), environmentId),
      payload: {},
    })
  }
  return userId
}

const login = (built: Built, payload: Record<string, string>, remoteAddress = '127.0.0.1') =>
  built.call({ method: 'POST', url: '/auth/login', payload, remoteAddress })

t.test('login records lastLogin; failed logins are throttled per account and per address', async (t) => {
  const built = await build(t, {
    QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: '3',
    QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
    QUIRE_LOGIN_WINDOW_SECONDS: '60',
  })
  const userId = await alice(built)

  const ok = await login(built, { username: 'alice', password: PASSWORD })
  t.equal(ok.statusCode, 200)
  t.equal(ok.json().data.userId, userId)
  const stored = await COLLECTIONS.users.in(built.resources.store).findOne({ _id: userId })
  t.match(stored?.lastLogin, /^\d{4}-\d\d-\d\dT/)

  for (let i = 0; i < 3; i++) {
    const wrong = await login(
      built,
      { username: i === 1 ? 'alice@example.com' : 'alice', password: 'wrong' },
      `10.0.0.${i}`,
    )
    t.equal(wrong.statusCode, 401)
  }
  const throttled = await login(built, { username: 'alice', password: PASSWORD }, '10.0.0.9')
  t.equal(throttled.statusCode, 429, 'the account is throttled, by username or e-mail, from any address')
  t.equal(throttled.json().error, 'rate_limited')
  t.equal(throttled.headers['retry-after'], '60')
  built.clock.now += 30_000
  const later = await login(built, { username: 'alice', password: PASSWORD })
  t.equal(later.headers['retry-after'], '30', 'Retry-After counts down with the window')
  built.clock.now += 30_000
  const reopened = await login(built, { username: 'alice', password: PASSWORD })
  t.equal(reopened.statusCode, 200, 'the window passed')

  for (let i = 0; i < 5; i++) await login(built, { username: `ghost-${i}`, password: 'wrong' }, '10.1.1.1')
  const byAddress = await login(built, { username: ADMIN.username, password: ADMIN.password }, '10.1.1.1')
  t.equal(byAddress.statusCode, 429, 'the address is throttled whatever account it tries')
  t.equal(byAddress.json().error, 'rate_limited')
  const otherAddress = await login(built, ADMIN, '10.1.1.2')
  t.equal(otherAddress.statusCode, 200)
})

t.test('password reset: always 200, single-use token in the outbox, expires, ends old sessions', async (t) => {
  const built = await build(t, { QUIRE_RESET_TOKEN_TTL: '600' })
  const userId = await alice(built)
  const outbox = COLLECTIONS.mailOutbox.in(built.resources.store)
  const oldSession = (await login(built, { username: 'alice', password: PASSWORD })).json().data.accessToken

  for (const payload of [{ email: 'nobody@example.com' }, { username: 'ghost' }]) {
    const unknown = await built.call({ method: 'POST', url: '/auth/reset-password', payload })
    t.equal(unknown.statusCode, 200, 'no account probing')
    t.same(unknown.json(), { status: 'ok', data: { requested: true } })
  }
  for (const payload of [{}, undefined]) {
    const empty = await built.call({ method: 'POST', url: '/auth/reset-password', payload })
    t.equal(empty.statusCode, 200, `${JSON.stringify(payload)} is answered like an unknown account`)
    t.same(empty.json(), { status: 'ok', data: { requested: true } })
  }
  t.equal(await outbox.count({ status: { $ne: 'discarded' } }), 0, 'nothing sent for unknown accounts')
  t.match(await outbox.find({}), [{ status: 'discarded', to: '', text: '' }], 'only discarded records, no text')
  t.equal(await COLLECTIONS.passwordResets.in(built.resources.store).count({ userId: { $ne: null } }), 0)
  await outbox.deleteMany({ status: 'discarded' })

  const requested = await built.call({
    method: 'POST',
    url: '/api/v2/auth/reset-password',
    payload: { email: 'Alice@Example.com' },
  })
  t.same(requested.json(), { status: 'ok', data: { requested: true } })
  const [mail] = await outbox.find({})
  t.match(mail, { to: 'alice@example.com', status: 'queued', subject: String })
  const token = /Reset token: (\S+)/.exec(mail?.text ?? '')?.[1] ?? ''
  t.ok(token.length >= 43)
  const pending = await COLLECTIONS.passwordResets.in(built.resources.store).find({ userId })
  t.equal(pending.length, 1)
  t.notOk(JSON.stringify(pending).includes(token), 'only the hash of the token is stored')

  const confirmed = await built.call({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token, password: 'new password!' },
  })
  t.equal(confirmed.statusCode, 200)
  t.same(confirmed.json(), { status: 'ok', data: { userId, revokedLongLivedTokens: 0 } })
  t.equal((await login(built, { username: 'alice', password: PASSWORD })).statusCode, 401, 'the old password is gone')
  t.equal((await login(built, { username: 'alice', password: 'new password!' })).statusCode, 200)
  const revoked = await built.call({ method: 'GET', url: '/api/v2/users', headers: headers(oldSession, ENV_A) })
  t.equal(revoked.statusCode, 401, 'access tokens issued before the reset are refused')

  const reused = await built.call({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token, password: 'third password' },
  })
  t.equal(reused.statusCode, 401, 'single use')
  t.equal(reused.json().error, 'unauthorized')

  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { username: 'alice' } })
  const [, second] = await outbox.find({}, { sort: { _id: 1 } })
  const secondToken = /Reset token: (\S+)/.exec(second?.text ?? '')?.[1] ?? ''
  built.clock.now += 601_000
  const expired = await built.call({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token: secondToken, password: 'third password' },
  })
  t.equal(expired.statusCode, 401, 'expired')
  t.equal(expired.json().error, 'unauthorized')
  const short = await built.call({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token: secondToken, password: 'short' },
  })
  t.equal(short.statusCode, 400)
  t.equal(short.json().error, 'validation_error')
})

t.test('2FA with a fixed clock: setup, enable, login with a TOTP or a recovery code once', async (t) => {
  const built = await build(t)
  const userId = await alice(built)
  const session = (await login(built, { username: 'alice', password: PASSWORD })).json().data.accessToken
  const auth = { authorization: `Bearer ${session}` }

  const unauthenticated = await built.call({ method: 'POST', url: '/auth/2fa/setup' })
  t.equal(unauthenticated.statusCode, 401)
  const notStarted = await built.call({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth,
    payload: { code: '123456', password: PASSWORD },
  })
  t.equal(notStarted.statusCode, 400)
  t.equal(notStarted.json().error, 'validation_error')

  const setup = await built.call({ method: 'POST', url: '/auth/2fa/setup', headers: auth })
  t.equal(setup.statusCode, 200)
  const { secret, uri } = setup.json().data
  t.match(uri, /^otpauth:\/\/totp\/Quire:alice\?.*secret=/)
  t.match(uri, `secret=${secret}`)
  const code = (offsetSteps = 0) =>
    TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: built.clock.now + offsetSteps * 30_000 })

  const pendingLogin = await login(built, { username: 'alice', password: PASSWORD })
  t.equal(pendingLogin.statusCode, 200, 'a setup not yet enabled changes nothing at login')

  const wrongCode = await built.call({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth,
    payload: { code: code(5), password: PASSWORD },
  })
  t.equal(wrongCode.statusCode, 400)
  t.equal(wrongCode.json().error, 'validation_error')
  const noPassword = await built.call({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth,
    payload: { code: code() },
  })
  t.equal(noPassword.statusCode, 400, 'turning 2FA on needs the current password')
  t.equal(noPassword.json().error, 'validation_error')
  const wrongPassword2fa = await built.call({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth,
    payload: { code: code(), password: 'not the password' },
  })
  t.equal(wrongPassword2fa.statusCode, 403, 'a stolen access token alone cannot turn 2FA on')
  t.equal(wrongPassword2fa.json().error, 'forbidden')
  t.equal(wrongPassword2fa.json().userDescription, 'The current password is not correct')
  const enabled = await built.call({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth,
    payload: { code: code(), password: PASSWORD },
  })
  t.equal(enabled.statusCode, 200)
  const { recoveryCodes } = enabled.json().data
  t.equal(recoveryCodes.length, 10)
  const stored = await COLLECTIONS.users.in(built.resources.store).findOne({ _id: userId })
  t.equal(stored?.authentication.totpEnabled, true)
  t.notOk(stored?.authentication.recoveryCodeHashes?.includes(recoveryCodes[0]), 'recovery codes are stored hashed')

  const again = await built.call({ method: 'POST', url: '/auth/2fa/setup', headers: auth })
  t.equal(again.statusCode, 403, 'an enabled 2FA is not replaced without a reset')

  const noCode = await login(built, { username: 'alice', password: PASSWORD })
  t.equal(noCode.statusCode, 401)
  t.equal(noCode.json().error, 'two_factor_required')
  const badCode = await login(built, { username: 'alice', password: PASSWORD, code: '000000' })
  t.equal(badCode.json().error, 'two_factor_required')
  const wrongPassword = await login(built, { username: 'alice', password: 'wrong', code: code(1) })
  t.equal(wrongPassword.json().error, 'unauthorized', 'the password is checked first')

  const replayed = await login(built, { username: 'alice', password: PASSWORD, code: code() })
  t.equal(replayed.statusCode, 401, 'the code used to enable cannot be replayed')
  built.clock.now += 30_000
  const withTotp = await login(built, { username: 'alice', password: PASSWORD, code: code() })
  t.equal(withTotp.statusCode, 200)
  const sameCode = await login(built, { username: 'alice', password: PASSWORD, code: code() })
  t.equal(sameCode.statusCode, 401, 'a TOTP code works once')

  const withRecovery = await login(built, {
    username: 'alice',
    password: PASSWORD,
    code: recoveryCodes[0].toUpperCase(),
  })
  t.equal(withRecovery.statusCode, 200, 'a recovery code works (case and dash insensitive)')
  const recoveryAgain = await login(built, { username: 'alice', password: PASSWORD, code: recoveryCodes[0] })
  t.equal(recoveryAgain.statusCode, 401, 'once')
  t.equal(recoveryAgain.json().error, 'two_factor_required')
})

t.test('reset-2FA: administrators of the environment or super-administrators; audited; sessions end', async (t) => {
  const built = await build(t)
  const userId = await alice(built)
  const session = (await login(built, { username: 'alice', password: PASSWORD })).json().data.accessToken
  const users = COLLECTIONS.users.in(built.resources.store)
  await users.updateOne(
    { _id: userId },
    {
      $set: {
        'authentication.totpSecret': 'JBSWY3DPEHPK3PXP',
        'authentication.totpEnabled': true,
        'authentication.recoveryCodeHashes': ['x'],
      },
    },
  )
  const { record: adminA, token: adminAToken } = await built.user({
    environments: { [ENV_A]: { administrator: true } },
  })
  const { token: adminBToken } = await built.user({ environments: { [ENV_B]: { administrator: true } } })
  const { token: memberToken } = await built.user({ environments: { [ENV_A]: {} } })
  const reset = (requestHeaders: Record<string, string>, target = userId) =>
    built.call({ method: 'POST', url: '/auth/reset-2FA', headers: requestHeaders, payload: { userId: target } })

  t.equal((await reset({})).statusCode, 401)
  const noEnv = await reset(headers(adminAToken))
  t.equal(noEnv.statusCode, 400, 'an environment administrator names the environment')
  t.equal(noEnv.json().error, 'environment_id_missing')
  const member = await reset(headers(memberToken, ENV_A))
  t.equal(member.statusCode, 403)
  t.equal(member.json().error, 'forbidden')
  const otherEnv = await reset(headers(adminBToken, ENV_B))
  t.equal(otherEnv.statusCode, 404, 'an administrator of B does not see a user of A')
  t.equal(otherEnv.json().error, 'user_not_found')
  const superTarget = await reset(headers(adminAToken, ENV_A), built.adminId)
  t.equal(superTarget.statusCode, 403, "a super-administrator's 2FA is reset only by a super-administrator")

  const done = await reset(headers(adminAToken, ENV_A))
  t.equal(done.statusCode, 200)
  t.same(done.json(), { status: 'ok', data: { userId, twoFactorEnabled: false, revokedLongLivedTokens: 0 } })
  const stored = await users.findOne({ _id: userId })
  t.notOk(stored?.authentication.totpSecret)
  t.notOk(stored?.authentication.totpEnabled)
  t.notOk(stored?.authentication.recoveryCodeHashes)
  const audit = await COLLECTIONS.auditLog.in(built.resources.store).find({})
  t.match(audit, [
    { action: 'reset-2FA', actorUserId: adminA._id, targetUserId: userId, environmentId: ENV_A, _createdOn: String },
  ])
  const old = await built.call({ method: 'GET', url: '/api/v2/users', headers: headers(session, ENV_A) })
  t.equal(old.statusCode, 401, "the user's sessions are revoked")
  t.equal(
    (await login(built, { username: 'alice', password: PASSWORD })).statusCode,
    200,
    'login needs no code any more',
  )

  const bySuper = await built.call({
    method: 'POST',
    url: '/api/v2/auth/reset-2FA',
    headers: headers(built.token(built.adminId)),
    payload: { userId },
  })
  t.equal(bySuper.statusCode, 200, 'a super-administrator needs no environment')
  const unknown = await reset(headers(built.token(built.adminId)), 'nobody')
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error, 'user_not_found')
})

t.test('a body that fails its schema: the field in description, plain words in userDescription', async (t) => {
  const built = await build(t)
  const res = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'a b' },
  })
  t.equal(res.statusCode, 400)
  t.equal(res.json().error, 'validation_error')
  t.match(res.json().description, /^body\/username /)
  t.equal(res.json().userDescription, USER_DESCRIPTIONS.validation_error, 'no schema path or pattern')
})
