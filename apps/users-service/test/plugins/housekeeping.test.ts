import t from 'tap'
import type { RecordStore } from '@quire/records'
import { createServer } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import { COLLECTIONS, ensureUsersIndexes } from '../../src/collections.js'
import { housekeepingPlugin } from '../../src/plugins/housekeeping.js'
import { mailerPlugin } from '../../src/plugins/mailer.js'
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

  t.same(
    await built.service.housekeeping.run(),
    { throttles: 0, passwordResets: 0, mailOutbox: 0, sessions: 0 },
    'nothing due',
  )
  built.clock.now += 60_000
  t.same(
    await built.service.housekeeping.run(),
    { throttles: 2, passwordResets: 0, mailOutbox: 0, sessions: 0 },
    'the login windows ended',
  )
  built.clock.now += 3_540_000
  t.same(
    await built.service.housekeeping.run(),
    { throttles: 2, passwordResets: 1, mailOutbox: 1, sessions: 0 },
    'the rest',
  )
  t.same(await count(), { throttles: 0, passwordResets: 0, mailOutbox: 0 })
})

/** Writes `count` throttle windows (`<prefix>0000`, ...) ending at `expiresAt`, 500 a transaction. */
async function seedThrottles(store: RecordStore, prefix: string, count: number, expiresAt: number) {
  for (let from = 0; from < count; from += 500) {
    await store.transaction(async (tx) => {
      const throttles = COLLECTIONS.throttles.in(tx)
      for (let i = from; i < Math.min(count, from + 500); i++) {
        await throttles.insertOne({
          _id: `${prefix}${String(i).padStart(4, '0')}`,
          count: 1,
          windowStart: 0,
          expiresAt,
        })
      }
    })
  }
}

t.test('a backlog past one chunk is purged to the end, 500 a transaction; windows not yet over stay', async (t) => {
  const built = await build(t)
  const { store } = built.resources
  await seedThrottles(store, 'old-', 1234, built.clock.now - 1)
  await seedThrottles(store, 'live-', 2, built.clock.now + 1)
  let transactions = 0
  const transaction = store.transaction.bind(store)
  store.transaction = (work) => {
    transactions++
    return transaction(work)
  }

  t.same(await built.service.housekeeping.run(), { throttles: 1234, passwordResets: 0, mailOutbox: 0, sessions: 0 })
  t.equal(transactions, 4, 'a first read of 16, then 500 a transaction: 16, 500, 500, 218')
  t.same(
    (await COLLECTIONS.throttles.in(store).find({})).map((record) => record._id),
    ['live-0000', 'live-0001'],
  )
})

t.test('closing stops a purge after its transaction in progress, and waits for it', async (t) => {
  // The two plugins alone, so that a hook can be added before the server is ready.
  const { store } = await testResources(t)
  await ensureUsersIndexes(store)
  const clock = { now: Date.parse('2026-01-01T00:00:00.000Z') }
  const app = createServer({ logLevel: 'silent' })
  await app.register(mailerPlugin, { store, from: 'quire@example.com', retentionSeconds: 60, now: () => clock.now })
  await app.register(housekeepingPlugin, { store, intervalSeconds: 3600, now: () => clock.now })
  t.teardown(() => app.close())
  await seedThrottles(store, 'old-', 1200, clock.now - 1)

  // The purge's second transaction (windows 17 to 516) waits until the server is closing.
  let entered: () => void = () => undefined
  const secondEntered = new Promise<void>((resolve) => (entered = resolve))
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  let count = 0
  const transaction = store.transaction.bind(store)
  store.transaction = async (work) => {
    if (++count === 2) {
      entered()
      await released
    }
    return transaction(work)
  }
  // After the plugin's preClose (the purge is told to stop), before its onClose (which waits for the purge).
  app.addHook('onClose', async () => release())
  await app.ready()

  const purge = app.housekeeping.run()
  await secondEntered
  t.equal(await COLLECTIONS.throttles.in(store).count({}), 1184, 'the first transaction (16 windows) went')
  await app.close()
  t.same(await purge, { throttles: 516, passwordResets: 0, mailOutbox: 0, sessions: 0 }, 'the purge ended')
  t.equal(count, 2, 'no transaction after closing began')
  t.equal(await COLLECTIONS.throttles.in(store).count({}), 684, 'the transaction in progress went; the rest stays')
})
