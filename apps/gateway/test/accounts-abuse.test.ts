import t from 'tap'
import { randomBytes } from 'node:crypto'
import { accessToken, createUser } from '@quire/testing'
import { USERS_COLLECTIONS } from '@quire/users-service'
import { ADMIN, build } from './helper.js'

/** Issue 19 through the gateway, all services local: what an attacker tries against accounts and credentials. */

const ENV = 'default'

t.test(
  'rate limits: anonymous by address at the edge, signed-in by user id, random headers get no budget',
  async (t) => {
    const { server, resources } = await build(t, {
      QUIRE_RATE_LIMIT_PER_MINUTE: '3',
      QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: '3',
    })
    const get = (remoteAddress: string, authorization?: string) =>
      server.inject({
        method: 'GET',
        url: '/api/v2/users',
        remoteAddress,
        headers: { 'environment-id': ENV, ...(authorization ? { authorization } : {}) },
      })

    for (let i = 0; i < 3; i++) t.equal((await get('10.0.0.1')).statusCode, 401)
    const anonymous = await get('10.0.0.1')
    t.equal(anonymous.statusCode, 429, 'no credentials: by address, at the edge')
    t.equal(anonymous.json().error, 'rate_limited')
    t.ok(Number(anonymous.headers['retry-after']) > 0)

    for (let i = 0; i < 3; i++) {
      const random = await get('10.0.0.2', `Bearer ${randomBytes(24).toString('base64url')}`)
      t.equal(random.statusCode, 401)
    }
    const fourth = await get('10.0.0.2', `Bearer ${randomBytes(24).toString('base64url')}`)
    t.equal(fourth.statusCode, 429, 'a random Authorization header per request gets no fresh budget')
    t.equal(fourth.json().error, 'rate_limited')

    const user = await createUser(resources.store, { environments: { [ENV]: {} } })
    const fresh = () => `Bearer ${accessToken(resources.keys.privateKey, user._id, { issuedAt: Date.now() - 1000 })}`
    for (let i = 0; i < 3; i++) t.equal((await get(`10.1.0.${i}`, fresh())).statusCode, 200)
    const signedIn = await get('10.1.0.9', fresh())
    t.equal(signedIn.statusCode, 429, 'signed in: by user id, whatever the token or the address')
    t.equal(signedIn.json().userDescription, 'Too many requests; please wait and try again')
    const other = await createUser(resources.store, { environments: { [ENV]: {} } })
    const otherToken = `Bearer ${accessToken(resources.keys.privateKey, other._id)}`
    t.equal((await get('10.1.0.9', otherToken)).statusCode, 200, 'another user from the same address has its own')
  },
)

t.test('login: forty parallel wrong passwords with a budget of ten, ten are checked', async (t) => {
  const { server } = await build(t, { QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: '10' })
  const answers = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      server.inject({
        method: 'POST',
        url: '/auth/login',
        remoteAddress: `10.2.${i}.1`,
        payload: { username: ADMIN.username, password: `guess ${i}` },
      }),
    ),
  )
  t.equal(answers.filter((answer) => answer.statusCode === 401).length, 10)
  t.equal(answers.filter((answer) => answer.statusCode === 429).length, 30)
  const right = await server.inject({ method: 'POST', url: '/auth/login', payload: ADMIN })
  t.equal(right.statusCode, 429, 'even the right password waits for the window')
})

t.test('reset-password: {} is 200; throttled with Retry-After; no token in the outbox for nobody', async (t) => {
  const { server, resources } = await build(t, { QUIRE_RESET_MAX_PER_ADDRESS: '3' })
  const reset = (payload: unknown) =>
    server.inject({
      method: 'POST',
      url: '/api/v2/auth/reset-password',
      remoteAddress: '10.3.0.1',
      payload: payload as object,
    })
  const empty = await reset({})
  t.equal(empty.statusCode, 200)
  t.same(empty.json(), { status: 'ok', data: { requested: true } })
  await reset({ username: 'nobody' })
  await reset({ email: 'nobody@example.com' })
  const limited = await reset({ username: 'someone-else' })
  t.equal(limited.statusCode, 429, 'no mail bombing from one address')
  t.ok(Number(limited.headers['retry-after']) > 0)
  const mails = await USERS_COLLECTIONS.mailOutbox.in(resources.store).find({})
  t.equal(mails.length, 3)
  t.ok(
    mails.every((mail) => mail.status === 'discarded' && mail.text === ''),
    'nothing readable for unknown names',
  )
})

t.test('credentials: a long-lived token mints nothing and changes nothing; 2FA needs the password', async (t) => {
  const { server } = await build(t)
  const session = (await server.inject({ method: 'POST', url: '/auth/login', payload: ADMIN })).json().data
  const auth = (token: string) => ({ authorization: `Bearer ${token}`, 'environment-id': ENV })
  const url = `/api/v2/users/${session.userId}/long-lived-tokens`
  const minted = await server.inject({ method: 'POST', url, headers: auth(session.accessToken) })
  t.equal(minted.statusCode, 201)
  const [token] = minted.json().data
  t.ok(Date.parse(token.expiresOn) > Date.now(), 'an expiry by default')
  const chained = await server.inject({ method: 'POST', url, headers: auth(token.token) })
  t.equal(chained.statusCode, 403, 'a long-lived token cannot mint another')
  for (const path of ['/auth/2fa/setup', '/auth/password', '/auth/sign-out-everywhere']) {
    const refused = await server.inject({ method: 'POST', url: path, headers: auth(token.token), payload: {} })
    t.equal(refused.statusCode, 403, `${path} refuses a long-lived token`)
  }
  await server.inject({ method: 'POST', url: '/auth/2fa/setup', headers: auth(session.accessToken) })
  const noPassword = await server.inject({
    method: 'POST',
    url: '/auth/2fa/enable',
    headers: auth(session.accessToken),
    payload: { code: '123456' },
  })
  t.equal(noPassword.statusCode, 400, 'turning 2FA on needs the current password')
  t.notMatch(noPassword.json().userDescription, /body\/|pattern|\^/, 'in plain language')
})
