import t from 'tap'
import type { RecordStore, Transaction } from '@quire/records'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, ENV_B, headers, type Built } from '../helper.js'

/** What an attacker would try against login, password reset and account recovery (issue 19). */

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

t.test(
  'the login budget is reserved before the hash: 40 parallel wrong passwords, budget 10, 10 checked',
  async (t) => {
    const built = await build(t, {
      QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: '10',
      QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: '1000',
    })
    const userId = await alice(built)
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => login(built, { username: 'alice', password: `wrong ${i}` }, `10.2.0.${i}`)),
    )
    const statuses = answers.map((answer) => answer.statusCode)
    t.equal(statuses.filter((status) => status === 401).length, 10, 'exactly ten were checked (a 401 follows a hash)')
    t.equal(statuses.filter((status) => status === 429).length, 30, 'the others were refused before any hash')
    for (const refused of answers.filter((answer) => answer.statusCode === 429)) {
      t.equal(refused.json().error, 'rate_limited')
      t.equal(refused.headers['retry-after'], '900')
    }
    const stored = await COLLECTIONS.throttles.in(built.resources.store).findOne({ _id: `login-account:${userId}` })
    t.equal(stored?.count, 10, 'no increment lost under contention')

    const byAddress = await build(t, {
      QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: '1000',
      QUIRE_LOGIN_MAX_FAILURES_PER_ADDRESS: '5',
    })
    const spread = await Promise.all(
      Array.from({ length: 20 }, (_, i) => login(byAddress, { username: `ghost-${i}`, password: 'x' }, '10.3.0.1')),
    )
    t.equal(spread.filter((answer) => answer.statusCode === 401).length, 5, 'per address too, across accounts')
  },
)

/** A store that records which collection methods are called, so two requests' work can be compared. */
function countingStore(log: string[]) {
  const wrap = <C extends object>(name: string, collection: C): C =>
    new Proxy(collection, {
      get(target, method, receiver) {
        const value = Reflect.get(target, method, receiver) as unknown
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          log.push(`${name}.${String(method)}`)
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
  return (store: RecordStore): RecordStore =>
    new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'collection') return (name: string) => wrap(name, target.collection(name))
        if (property === 'transaction') {
          return <R>(work: (tx: Transaction) => Promise<R>) =>
            target.transaction((tx) =>
              work({
                collection: (name: string) => wrap(`tx:${name}`, tx.collection(name)),
                append: (...entry) => tx.append(...entry),
              }),
            )
        }
        return Reflect.get(target, property, receiver) as unknown
      },
    })
}

t.test('reset-password: throttled per account and per address, the same work for known and unknown', async (t) => {
  const work: string[] = []
  const built = await build(
    t,
    { QUIRE_RESET_MAX_PER_ACCOUNT: '2', QUIRE_RESET_MAX_PER_ADDRESS: '4', QUIRE_RESET_WINDOW_SECONDS: '600' },
    { wrapStore: countingStore(work) },
  )
  await alice(built)
  const reset = (payload: Record<string, string>, remoteAddress = '10.4.0.1') =>
    built.call({ method: 'POST', url: '/auth/reset-password', payload, remoteAddress })

  work.length = 0
  t.equal((await reset({ email: 'alice@example.com' }, '10.4.0.1')).statusCode, 200)
  const known = [...work]
  work.length = 0
  t.equal((await reset({ email: 'nobody@example.com' }, '10.4.0.2')).statusCode, 200)
  t.same(work, known, 'the same store work, in the same order, whether or not the account exists')
  t.ok(known.includes('tx:password_resets.insertOne') && known.includes('tx:mail_outbox.insertOne'))

  t.equal((await reset({ username: 'alice' }, '10.4.0.3')).statusCode, 200, 'by username: the same account')
  const perAccount = await reset({ email: 'ALICE@example.com' }, '10.4.0.4')
  t.equal(perAccount.statusCode, 429, 'the account has used its budget, whichever name and address')
  t.equal(perAccount.json().error, 'rate_limited')
  t.equal(perAccount.headers['retry-after'], '600')
  t.equal(perAccount.json().userDescription, 'Too many attempts; please wait a moment and try again')
  const mails = COLLECTIONS.mailOutbox.in(built.resources.store)
  t.equal(await mails.count({ status: 'queued' }), 2, 'no mail bombing: two mails for two allowed requests')

  for (let i = 0; i < 4; i++) t.equal((await reset({ username: `ghost-${i}` }, '10.4.9.9')).statusCode, 200)
  const perAddress = await reset({ username: 'ghost-5' }, '10.4.9.9')
  t.equal(perAddress.statusCode, 429, 'the address has used its budget, whichever names it tries')
  t.ok(Number(perAddress.headers['retry-after']) > 0)

  built.clock.now += 600_000
  t.equal((await reset({ email: 'alice@example.com' }, '10.4.0.4')).statusCode, 200, 'a new window')
})

t.test('reset mail: handed to SMTP, then no usable token at rest; retried while it fails', async (t) => {
  const sent: { to: string; text: string }[] = []
  let failures = 1
  const transport = {
    async sendMail(mail: { to: string; text: string }) {
      if (failures-- > 0) throw new Error('SMTP down')
      sent.push(mail)
    },
  }
  const built = await build(t, {}, { mailTransport: transport })
  await alice(built)
  const outbox = COLLECTIONS.mailOutbox.in(built.resources.store)
  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { email: 'alice@example.com' } })
  await built.service.mailer.drain()
  const [failed] = await outbox.find({ status: { $ne: 'discarded' } })
  t.match(failed, { status: 'queued', attempts: 1, nextAttemptAt: built.clock.now + 60_000 }, 'kept for a retry')
  t.match(failed?.text, /Reset token: \S{43}/, 'with its text until handed over')

  await built.service.housekeeping.run()
  t.equal(sent.length, 0, 'not retried before its time')
  built.clock.now += 60_000
  await built.service.housekeeping.run()
  t.equal(sent.length, 1, 'retried by the timer')
  const token = /Reset token: (\S+)/.exec(sent[0]?.text ?? '')?.[1] ?? ''
  t.equal(token.length, 43)
  const [delivered] = await outbox.find({ status: { $ne: 'discarded' } })
  t.match(delivered, { status: 'sent', attempts: 2, to: 'alice@example.com' })
  t.match(delivered?.text, /Reset token: \[removed once sent\]/)
  for (const collection of Object.values(COLLECTIONS)) {
    const records = await collection.in(built.resources.store).find({})
    t.notOk(JSON.stringify(records).includes(token), `no usable token at rest in ${collection.name}`)
  }
  const confirmed = await built.call({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token, password: 'brand new password' },
  })
  t.equal(confirmed.statusCode, 200, 'the mailed token works')
})

t.test('usernames may be e-mail addresses; login and reset find the account by either name', async (t) => {
  const built = await build(t)
  const created = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'bob@example.com', password: PASSWORD, email: 'bob.work@example.com' },
  })
  t.equal(created.statusCode, 201, 'an e-mail address as username')
  const userId: string = created.json().data[0]._id
  t.equal((await login(built, { username: 'bob@example.com', password: PASSWORD })).json().data.userId, userId)
  t.equal((await login(built, { username: 'bob.work@example.com', password: PASSWORD })).json().data.userId, userId)

  const outbox = COLLECTIONS.mailOutbox.in(built.resources.store)
  for (const payload of [{ email: 'bob@example.com' }, { username: 'bob.work@example.com' }]) {
    await outbox.deleteMany({})
    await built.call({ method: 'POST', url: '/auth/reset-password', payload })
    const queued = await outbox.find({ status: 'queued' })
    t.match(queued, [{ to: 'bob.work@example.com' }], `${JSON.stringify(payload)} finds the account`)
  }
})

t.test('reset-2FA: an administrator of every environment of the user; tokens revoked and counted', async (t) => {
  const built = await build(t)
  const userId = await alice(built, [ENV_A, ENV_B])
  const tokens = COLLECTIONS.longLivedTokens.in(built.resources.store)
  const session = (await login(built, { username: 'alice', password: PASSWORD })).json().data.accessToken
  for (const name of ['one', 'two']) {
    const minted = await built.call({
      method: 'POST',
      url: `/api/v2/users/${userId}/long-lived-tokens`,
      headers: headers(session, ENV_A),
      payload: { name },
    })
    t.equal(minted.statusCode, 201)
  }
  const { token: adminA } = await built.user({ environments: { [ENV_A]: { administrator: true } } })
  const { token: adminBoth } = await built.user({
    environments: { [ENV_A]: { administrator: true }, [ENV_B]: { administrator: true } },
  })
  const reset = (token: string) =>
    built.call({ method: 'POST', url: '/auth/reset-2FA', headers: headers(token, ENV_A), payload: { userId } })

  const partial = await reset(adminA)
  t.equal(partial.statusCode, 403, 'an administrator of A alone cannot reset a user who is also in B')
  t.equal(partial.json().error, 'forbidden')
  t.equal(partial.json().userDescription, 'You are not allowed to do this')
  t.equal(await tokens.count({ userId }), 2, 'nothing changed')

  const done = await reset(adminBoth)
  t.equal(done.statusCode, 200)
  t.same(done.json().data, { userId, twoFactorEnabled: false, revokedLongLivedTokens: 2 })
  t.equal(await tokens.count({ userId }), 0)
})

t.test('a password reset revokes the long-lived tokens and says how many', async (t) => {
  const built = await build(t)
  const userId = await alice(built)
  const session = (await login(built, { username: 'alice', password: PASSWORD })).json().data.accessToken
  const minted = await built.call({
    method: 'POST',
    url: `/api/v2/users/${userId}/long-lived-tokens`,
    headers: headers(session, ENV_A),
  })
  const secret: string = minted.json().data[0].token
  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { username: 'alice' } })
  const [mail] = await COLLECTIONS.mailOutbox.in(built.resources.store).find({ status: 'queued' })
  const token = /Reset token: (\S+)/.exec(mail?.text ?? '')?.[1] ?? ''
  const confirmed = await built.call({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token, password: 'brand new password' },
  })
  t.same(confirmed.json(), { status: 'ok', data: { userId, revokedLongLivedTokens: 1 } })
  const withOld = await built.call({ method: 'GET', url: '/api/v2/users', headers: headers(secret, ENV_A) })
  t.equal(withOld.statusCode, 401, 'the long-lived token no longer works')
})

t.test('validation errors: the technical text in description, plain language in userDescription', async (t) => {
  const built = await build(t)
  const invalid = await login(built, { username: '', password: 'x' })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().error, 'validation_error')
  t.match(invalid.json().description, /^body\/username /)
  t.equal(
    invalid.json().userDescription,
    'Some of the information sent is missing or not valid; please check it and try again',
  )
  const pattern = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'has space' },
  })
  t.match(pattern.json().description, /pattern/)
  t.notMatch(pattern.json().userDescription, /pattern|body\/|\^|\\/, 'no schema path or regex for people')
})
