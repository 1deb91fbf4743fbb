import t from 'tap'
import type { Collection, RecordStore, Transaction } from '@quire/records'
import { createServer } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import { DOCUMENTS_COLLECTIONS, ensureDocumentsIndexes, type BulkRecord } from '../../src/collections.js'
import { idempotencyPlugin } from '../../src/plugins/idempotency.js'
import type { TestContext } from '../helper.js'

const HOUR = 60 * 60 * 1000
const OWNER = { environmentId: 'env_a', definitionId: 'd1', userId: 'u1' }

/**
 * The plugin alone on a fresh store, with a clock the test moves. Not ready yet: its sweep at start (onReady)
 * would otherwise race the test's own calls.
 */
async function build(t: TestContext, resources?: { store: RecordStore }) {
  const { store } = resources ?? (await testResources(t))
  await ensureDocumentsIndexes(store)
  const clock = { now: Date.parse('2026-01-01T00:00:00.000Z') }
  const app = createServer({ logLevel: 'silent' })
  await app.register(idempotencyPlugin, { store, now: () => clock.now })
  t.teardown(() => app.close())
  return { app, store, clock, keys: app.idempotencyKeys, stored: DOCUMENTS_COLLECTIONS.idempotencyKeys.in(store) }
}

/** A bulk call's result, as `once` keeps it: the smallest record a create can return. */
const result = (hash: string) => async (): Promise<BulkRecord> => ({ _hash: hash, results: [] })

/** Writes `count` keys (`<prefix>-00000`, ...) straight into the store, expiring at `expiresOn` (epoch ms). */
async function seed(
  store: RecordStore,
  prefix: string,
  count: number,
  expiresOn: number,
  document: BulkRecord = { _hash: 'h', results: [] },
) {
  for (let from = 0; from < count; from += 500) {
    await store.transaction(async (tx: Transaction) => {
      const keys = DOCUMENTS_COLLECTIONS.idempotencyKeys.in(tx)
      for (let i = from; i < Math.min(count, from + 500); i++) {
        const _id = `${prefix}-${String(i).padStart(5, '0')}`
        await keys.insertOne({ _id, _hash: document._hash, bodyHash: 'b', document, expiresOn: iso(expiresOn) })
      }
    })
  }
}

const iso = (ms: number) => new Date(ms).toISOString()

t.test('a key past its 24 h is swept; a fresh one stays and still replays', async (t) => {
  const { keys, stored, clock } = await build(t)
  await keys.once(OWNER, 'old', { n: 1 }, result('h-old'))
  clock.now += 23 * HOUR
  await keys.once(OWNER, 'fresh', { n: 2 }, result('h-fresh'))
  clock.now += HOUR
  t.equal(await keys.sweep(), 0, 'at exactly 24 h a key is not yet past its expiry')
  t.equal(await stored.count({}), 2)

  clock.now += 1
  t.equal(await keys.sweep(), 1, 'one key was past its 24 h')
  const left = await stored.find({})
  t.same(
    left.map((record) => [record.document._hash, record.expiresOn]),
    [['h-fresh', '2026-01-02T23:00:00.000Z']],
    'only the fresh key is stored',
  )
  const replay = await keys.once(OWNER, 'fresh', { n: 2 }, async () => {
    throw new Error('a replay creates nothing')
  })
  t.same(replay, { document: { _hash: 'h-fresh', results: [] }, replayed: true }, 'the fresh key still replays')
  t.equal(await keys.sweep(), 0, 'nothing left to sweep')

  const again = await keys.once(OWNER, 'old', { other: true }, result('h-again'))
  t.same(again, { document: { _hash: 'h-again', results: [] }, replayed: false }, 'the swept key is new again')
})

t.test('a backlog past one chunk is swept to the end, each transaction bounded in keys and bytes', async (t) => {
  const { keys, stored, store, clock } = await build(t)
  await seed(store, 'k', 1234, clock.now - HOUR)
  // About 400 kB each, as a large created document may be: at most two fit in one transaction's MiB.
  const results = Array.from({ length: 8000 }, (_, i) => ({ op: 'create' as const, _id: String(i).padStart(24, '0') }))
  await seed(store, 'big', 3, clock.now - HOUR, { _hash: 'x', results })
  await seed(store, 'live', 1, clock.now + HOUR)

  // Each transaction of the sweep: how many keys it deleted and how many bytes of records.
  const transactions: { keys: number; bytes: number }[] = []
  const transaction = store.transaction.bind(store)
  store.transaction = (work) =>
    transaction((tx) => {
      const counted = { keys: 0, bytes: 0 }
      transactions.push(counted)
      const counting = (collection: Collection): Collection =>
        new Proxy(collection, {
          get(target, property) {
            if (property !== 'deleteOne') return Reflect.get(target, property, target)
            return async (...args: Parameters<Collection['deleteOne']>) => {
              const deleted = await target.deleteOne(...args)
              if (deleted) {
                counted.keys++
                counted.bytes += JSON.stringify(deleted).length
              }
              return deleted
            }
          },
        })
      return work({
        collection: (name: string) => counting(tx.collection(name)),
        append: (...entry) => tx.append(...entry),
      } as Transaction)
    })

  t.equal(await keys.sweep(), 1237, 'every expired key')
  t.same(
    (await stored.find({})).map((record) => record._id),
    ['live-00000'],
    'only the live key is left',
  )
  // Oldest first, then by `_id`: the large records (`big-...`), then the others. The first read takes 16 keys (two
  // transactions: the two large ones fill a MiB), the next as many as its average says fit in a MiB, then 500.
  t.same(
    transactions.map((each) => each.keys),
    [2, 14, 14, 500, 500, 207],
    'a transaction ends at 1 MiB of records (two large ones), or at 500 keys',
  )
  t.ok(
    transactions.every((each) => each.bytes <= 1024 * 1024),
    `at most 1 MiB of records each (${transactions.map((each) => each.bytes).join(', ')} bytes)`,
  )
})

t.test('replicas sweeping the same keys at once delete each once', async (t) => {
  const first = await build(t)
  const second = await build(t, { store: first.store })
  await seed(first.store, 'k', 1200, first.clock.now - HOUR)
  const swept = await Promise.all([first.keys.sweep(), second.keys.sweep()])
  t.equal(swept[0] + swept[1], 1200, `${swept.join(' + ')}`)
  t.equal(await first.stored.count({}), 0)
})

t.test('a sweep runs at start; closing stops it after its transaction in progress, and waits for it', async (t) => {
  const { app, store, stored, clock } = await build(t)
  await seed(store, 'k', 1200, clock.now - HOUR)

  // The second transaction of the sweep (keys 17 to 516) waits until the app is closing.
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
  // onClose hooks run last-registered first: this one after the plugin's preClose (the sweep is told to stop) and
  // before its onClose (which waits for the sweep).
  app.addHook('onClose', async () => release())

  await app.ready()
  await secondEntered
  t.equal(await stored.count({}), 1184, 'the first transaction (16 keys) went')
  await app.close()
  t.equal(count, 2, 'no transaction after closing began')
  t.equal(await stored.count({}), 684, 'the transaction in progress went; the rest stays')
})
