import t from 'tap'
import { USERS_COLLECTIONS } from '@quire/users-service'
import { login, quire, serve, tempDir } from '../helper.js'

t.test('admin create: a super-administrator with a generated password printed once', async (t) => {
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const result = await quire(['admin', 'create', 'root'], { QUIRE_DATA_DIR: dataDir })
  t.equal(result.code, 0, result.stderr)
  const password = /shown only this once\): (\S+)/.exec(result.stdout)?.[1] ?? ''
  t.ok(password.length >= 20)
  const root = await login(server, 'root', password, 'default')
  t.equal(root.status, 200)
  const environments = await server.inject({ method: 'GET', url: '/api/v2/environments', headers: root.headers })
  t.equal(environments.statusCode, 200, 'a super-administrator call')

  const again = await quire(['admin', 'create', 'root'], { QUIRE_DATA_DIR: dataDir })
  t.equal(again.code, 1)
  t.match(again.stderr, /username "root" is taken/)
})

t.test(
  'admin create: the username rule of the service, for super-administrators and administrators alike',
  async (t) => {
    const dataDir = await tempDir(t)
    const { server } = await serve(t, dataDir)
    const env = { QUIRE_DATA_DIR: dataDir }
    for (const argv of [
      ['admin', 'create', 'ADMIN'],
      ['admin', 'create', 'Admin', '--environment', 'default'],
    ]) {
      const variant = await quire(argv, env)
      t.equal(variant.code, 1, argv.join(' '))
      t.match(variant.stderr, /is taken/, 'a case variant of the bootstrap administrator')
    }
    for (const username of ['\u0430dmin', 'adm\u200bin', 'admin\u202e']) {
      const decoy = await quire(['admin', 'create', username], env)
      t.equal(decoy.code, 1, JSON.stringify(username))
      t.match(decoy.stderr, /body\/username must not/)
    }
    const composed = await quire(['admin', 'create', 'zoe\u0308', '--password-stdin'], env, 'zoe password\n')
    t.equal(composed.code, 0, composed.stderr)
    t.equal((await login(server, 'zo\u00eb', 'zoe password')).status, 200, 'stored in NFC: signs in typed composed')
  },
)

t.test('admin create --environment: an administrator of that environment, password from stdin', async (t) => {
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const env = { QUIRE_DATA_DIR: dataDir }
  const created = await quire(
    ['admin', 'create', 'boss', '--environment', 'default', '--password-stdin'],
    env,
    'boss password\n',
  )
  t.equal(created.code, 0, created.stderr)
  t.notMatch(created.stdout, /boss password/, 'a given password is not printed')
  const boss = await login(server, 'boss', 'boss password', 'default')
  t.equal(boss.status, 200)
  const users = await server.inject({ method: 'GET', url: '/api/v2/users', headers: boss.headers })
  t.equal(users.statusCode, 200, 'an administrator call in the environment')
  const other = await server.inject({
    method: 'POST',
    url: '/api/v2/environments',
    headers: boss.headers,
    payload: { _id: 'elsewhere', name: 'Elsewhere' },
  })
  t.equal(other.statusCode, 403, 'not a super-administrator')

  const missing = await quire(['admin', 'create', 'x', '--environment', 'nowhere'], env)
  t.equal(missing.code, 1)
  t.match(missing.stderr, /there is no environment "nowhere"/)
  const short = await quire(['admin', 'create', 'x', '--password-stdin'], env, 'short\n')
  t.equal(short.code, 1)
  t.match(short.stderr, /8 to 1024 characters/)
})

t.test('password reset: the new password works, the old one and every session end', async (t) => {
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const before = await login(server, 'admin', 'correct horse battery', 'default')
  t.equal(before.status, 200)
  const reset = await quire(
    ['password', 'reset', 'admin', '--password-stdin'],
    { QUIRE_DATA_DIR: dataDir },
    'a new one!',
  )
  t.equal(reset.code, 0, reset.stderr)
  t.match(reset.stdout, /every session of the user has ended/)

  const old = await server.inject({ method: 'GET', url: '/api/v2/users', headers: before.headers })
  t.equal(old.statusCode, 401, 'a token issued before the reset is refused')
  t.equal((await login(server, 'admin', 'correct horse battery')).status, 401)
  t.equal((await login(server, 'admin', 'a new one!')).status, 200)

  const variant = await quire(
    ['password', 'reset', 'ADMIN', '--password-stdin'],
    { QUIRE_DATA_DIR: dataDir },
    'third one!',
  )
  t.equal(variant.code, 0, 'found as sign-in finds it: any case')
  t.equal((await login(server, 'admin', 'third one!')).status, 200)

  const unknown = await quire(['password', 'reset', 'nobody'], { QUIRE_DATA_DIR: dataDir })
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /there is no user "nobody"/)
})

t.test('password reset: a reset link mailed before it no longer works', async (t) => {
  const dataDir = await tempDir(t)
  const { server, store } = await serve(t, dataDir)
  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  const payload = { username: 'forgetful', password: 'some password', email: 'forgetful@example.com' }
  const created = await server.inject({ method: 'POST', url: '/api/v2/users', headers: admin, payload })
  t.equal(created.statusCode, 201, created.body)
  const requested = await server.inject({
    method: 'POST',
    url: '/auth/reset-password',
    payload: { username: 'forgetful' },
  })
  t.equal(requested.statusCode, 200, requested.body)
  // Without SMTP the outbox is the delivery: the queued mail holds the token, as the mailbox would.
  const [mail] = await USERS_COLLECTIONS.mailOutbox.in(store).find({ to: 'forgetful@example.com' })
  const token = /Reset token: (\S+)/.exec(mail?.text ?? '')?.[1] ?? ''
  t.not(token, '', 'a reset link was mailed')

  const reset = await quire(
    ['password', 'reset', 'forgetful', '--password-stdin'],
    { QUIRE_DATA_DIR: dataDir },
    'chosen by the operator',
  )
  t.equal(reset.code, 0, reset.stderr)
  const confirm = await server.inject({
    method: 'POST',
    url: '/auth/reset-password/confirm',
    payload: { token, password: 'chosen by whoever read the mail' },
  })
  t.equal(confirm.statusCode, 401, 'the mailed link is void')
  t.equal((await login(server, 'forgetful', 'chosen by whoever read the mail')).status, 401)
  t.equal((await login(server, 'forgetful', 'chosen by the operator')).status, 200)
})
