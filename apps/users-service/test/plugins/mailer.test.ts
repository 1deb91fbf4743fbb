import t from 'tap'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, headers } from '../helper.js'

t.test('a mail SMTP keeps refusing is given up after five attempts, its token removed', async (t) => {
  let attempts = 0
  const transport = {
    async sendMail() {
      attempts++
      throw new Error('SMTP down')
    },
  }
  const built = await build(
    t,
    { QUIRE_RESET_TOKEN_TTL: '86400', QUIRE_MAIL_RETENTION_SECONDS: '60' },
    { mailTransport: transport },
  )
  await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'dora', password: 'dora password', email: 'dora@example.com' },
  })
  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { username: 'dora' } })
  await built.service.mailer.drain()
  const outbox = COLLECTIONS.mailOutbox.in(built.resources.store)
  for (let retry = 1; retry < 5; retry++) {
    built.clock.now += 60_000 * 2 ** (retry - 1)
    await built.service.housekeeping.run()
  }
  t.equal(attempts, 5)
  const [mail] = await outbox.find({ to: 'dora@example.com' })
  t.match(mail, { status: 'failed', attempts: 5, expiresAt: built.clock.now + 60_000 })
  t.notMatch(mail?.text, /Reset token: [\w-]{43}/, 'the token is gone from the outbox')
  built.clock.now += 60_000
  await built.service.housekeeping.run()
  t.equal(await outbox.count({ to: 'dora@example.com' }), 0, 'purged after the retention')
})
