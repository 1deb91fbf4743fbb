import t from 'tap'
import { COLLECTIONS } from '../../src/collections.js'
import { build } from '../helper.js'

t.test('expired throttles, reset tokens and mails are purged on the timer, with a fixed clock', async (t) => {
  const built = await build(t, { QUIRE_RESET_TOKEN_TTL: '600', QUIRE_LOGIN_WINDOW_SECONDS: '60' })
  const { store } = built.resources
  await built.call({ method: 'POST', url: '/auth/login', payload: { username: 'ghost', password: 'wrong' } })
  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { username: 'ghost' } })
  const count = async () => ({
    throttles: await COLLECTIONS.throttles.in(store).count({}),
    passwordResets: await COLLECTIONS.passwordResets.in(store).count({}),
    mailOutbox: await COLLECTIONS.mailOutbox.in(store).count({}),
  })
  t.same(await count(), { throttles: 4, passwordResets: 1, mailOutbox: 1 })

  t.same(await built.service.housekeeping.run(), { throttles: 0, passwordResets: 0, mailOutbox: 0 }, 'nothing due')
  built.clock.now += 60_000
  t.same(
    await built.service.housekeeping.run(),
    { throttles: 2, passwordResets: 0, mailOutbox: 0 },
    'the login windows ended',
  )
  built.clock.now += 3_540_000
  t.same(await built.service.housekeeping.run(), { throttles: 2, passwordResets: 1, mailOutbox: 1 }, 'the rest')
  t.same(await count(), { throttles: 0, passwordResets: 0, mailOutbox: 0 })
})
