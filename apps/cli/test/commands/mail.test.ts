import t from 'tap'
import { login, quire, serve, tempDir } from '../helper.js'

t.test('mail list: the newest mails of the outbox, never their text (it holds reset tokens)', async (t) => {
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const env = { QUIRE_DATA_DIR: dataDir }
  t.match((await quire(['mail', 'list'], env)).stdout, /the outbox is empty/)

  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  const created = await server.inject({
    method: 'POST',
    url: '/api/v2/users',
    headers: admin,
    payload: { username: 'forgetful', password: 'some password', email: 'forgetful@example.com' },
  })
  t.equal(created.statusCode, 201, created.body)
  for (let i = 0; i < 2; i++) {
    const reset = await server.inject({
      method: 'POST',
      url: '/auth/reset-password',
      payload: { username: 'forgetful' },
    })
    t.ok(reset.statusCode < 300, reset.body)
  }

  const listed = await quire(['mail', 'list', '--limit', '1'], env)
  t.equal(listed.code, 0, listed.stderr)
  const lines = listed.stdout.trim().split('\n')
  t.equal(lines.length, 1, '--limit')
  t.match(lines[0], /forgetful@example\.com +Reset your Quire password/)
  t.notMatch(listed.stdout, /token/i, 'no token, no text')
  t.equal((await quire(['mail', 'list'], env)).stdout.trim().split('\n').length, 2)
})
