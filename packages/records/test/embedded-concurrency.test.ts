import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import {
  ConflictError,
  newObjectId,
  openEmbeddedStore,
  StoreUnavailableError,
  type StoredRecord,
} from '../src/index.js'

interface Item extends StoredRecord {
  externalId: string
  category: string
  price: number
  tags: string[]
  _hash: string
}

const OPERATIONS = 2000
const IN_FLIGHT = 50

let made = 0
function item(): Item {
  const i = made++
  return {
    _id: newObjectId(),
    externalId: `e${i}`,
    category: `c${i % 5}`,
    price: i % 100,
    tags: [`t${i % 7}`, `t${i % 3}`],
    _hash: `h${i}`,
  }
}

/** Everything a request of the HTTP layer may do, chosen by `i`: range reads over every plan, writes, transactions. */
async function operation(store: ReturnType<typeof openEmbeddedStore>, ids: string[], i: number): Promise<void> {
  const items = store.collection<Item>('items')
  const id = ids[(i * 7919) % ids.length] as string
  switch (i % 10) {
    case 0:
      ids.push((await items.insertOne(item()))._id)
      break
    case 1: {
      const current = await items.findOne({ _id: id })
      if (current) {
        await items
          .updateOne({ _id: id }, { $set: { price: i % 100, _hash: `u${i}` } }, { expectedHash: current._hash })
          .catch((error: unknown) => {
            if (!(error instanceof ConflictError)) throw error
          })
      }
      break
    }
    case 2:
      await items.find({}, { limit: 21, after: id }).catch((error: unknown) => {
        if (!(error instanceof Error && /after/.test(error.message))) throw error
      })
      break
    case 3:
      await items.find({ category: `c${i % 5}` }, { sort: { price: -1 }, limit: 21 })
      break
    case 4:
      await items.count({ tags: `t${i % 7}` })
      break
    case 5:
      await items.findOne({ externalId: `e${i % made}` }, { projection: { _id: 1 } })
      break
    case 6:
      await store
        .transaction(async (tx) => {
          const inTx = tx.collection<Item>('items')
          const found = await inTx.findOne({ _id: id })
          if (found) await inTx.updateOne({ _id: id }, { $set: { category: `c${i % 5}` } })
        })
        .catch((error: unknown) => {
          if (!(error instanceof ConflictError)) throw error
        })
      break
    case 7:
      await items.find({ tags: `t${i % 7}` }, { limit: 21 })
      break
    case 8:
      await items.find({ price: { $gt: 50 } }, { limit: 5, projection: { price: 1 } })
      break
    default:
      await items.find({}, { sort: { price: -1 }, limit: 21 })
      break
  }
}

async function seeded(dataDir: string): Promise<{ store: ReturnType<typeof openEmbeddedStore>; ids: string[] }> {
  const store = openEmbeddedStore(dataDir)
  const items = store.collection<Item>('items')
  await items.ensureIndex({
    name: 'ext',
    fields: { externalId: 1 },
    unique: true,
    partial: { externalId: { $exists: true } },
  })
  await items.ensureIndex({ name: 'category_price', fields: { category: 1, price: -1 } })
  await items.ensureIndex({ name: 'tags', fields: { tags: 1 } })
  const ids = await Promise.all(Array.from({ length: 200 }, async () => (await items.insertOne(item()))._id))
  return { store, ids }
}

t.test(`${OPERATIONS} mixed reads and writes, ${IN_FLIGHT} in flight, in one process`, async (t) => {
  const { store, ids } = await seeded(t.testdir())
  t.teardown(() => store.close())
  let next = 0
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < OPERATIONS) await operation(store, ids, next++)
    }),
  )
  t.equal(next, OPERATIONS)
  const items = store.collection<Item>('items')
  t.equal(await items.count({}), ids.length, 'every acknowledged insert is stored')
  t.equal((await items.find({}, { projection: { _id: 1 } })).length, ids.length)
})

t.test(
  'closing under load: operations in progress finish, later ones are refused, nothing throws out of band',
  async (t) => {
    const { store, ids } = await seeded(t.testdir())
    const outOfBand: unknown[] = []
    const onUncaught = (error: unknown): void => {
      outOfBand.push(error)
    }
    process.on('uncaughtException', onUncaught)
    t.teardown(() => {
      process.off('uncaughtException', onUncaught)
    })

    let next = 0
    let closed: Promise<void> | undefined
    const refused: unknown[] = []
    const workers = Array.from({ length: IN_FLIGHT }, async () => {
      // Keeps issuing operations while the store closes, as HTTP requests still in flight at shutdown do.
      while (next < OPERATIONS) {
        const i = next++
        if (i === OPERATIONS / 2) closed = store.close()
        try {
          await operation(store, ids, i)
        } catch (error) {
          if (!closed) throw error
          refused.push(error)
        }
      }
    })
    await Promise.all(workers)
    await closed
    // lmdb resets its read transaction from a timer; let timers and turns run before judging.
    await new Promise((resolve) => setTimeout(resolve, 0))
    await nextTurn()
    t.same(outOfBand, [], 'no uncaught exception')
    t.ok(refused.length > 0, 'operations after close were refused')
    t.ok(
      refused.every((error) => error instanceof StoreUnavailableError),
      'refused with StoreUnavailableError',
    )
    await t.rejects(store.collection('items').findOne({ _id: ids[0] as string }), StoreUnavailableError)
    await t.rejects(store.ping(), StoreUnavailableError)
    await t.rejects(store.collection('items').insertOne({ _id: newObjectId() }), StoreUnavailableError)
  },
)
