import { join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { DuplicateKeyError, newObjectId, openEmbeddedStore, type StoredRecord } from '../src/index.js'

// 50,000 durable writes, grouped 500 at a time.
t.setTimeout(240_000)

interface Item extends StoredRecord {
  n: number
  category: string
}

const item = (i: number): Item => ({ _id: newObjectId(), n: i, category: `c${i % 10}` })

/** Keys left in the store's shared databases, read beside the store (lmdb shares the environment in a process). */
async function keysIn(dataDir: string): Promise<{ records: number; entries: number }> {
  const env = open({ path: join(dataDir, 'records'), maxDbs: 8 })
  const count = (name: string) => env.openDB({ name, keyEncoding: 'ordered-binary' }).getKeysCount()
  const counts = { records: count('records'), entries: count('entries') }
  await env.close()
  return counts
}

t.test('10,000 collections with indexes made and dropped: no database slot is used up, nothing is left', async (t) => {
  const dataDir = t.testdir()
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const lifetime = async (i: number) => {
    const name = `defined${i}`
    const c = store.collection<Item>(name)
    await c.ensureIndex({ name: 'by_n', fields: { n: 1 }, unique: true })
    await c.ensureIndex({ name: 'by_category', fields: { category: 1, n: -1 } })
    await c.insertOne(item(i))
    await c.dropIndex('by_category')
    await store.dropCollection(name)
  }
  const IN_FLIGHT = 500
  for (let i = 0; i < 10_000; i += IN_FLIGHT) {
    await Promise.all(Array.from({ length: IN_FLIGHT }, (_, j) => lifetime(i + j)))
  }
  const c = store.collection<Item>('defined0')
  t.equal(await c.count({}), 0, 'a collection made again after its drop starts empty')
  t.same(await c.indexes(), [], 'and without the indexes of before')
  await c.ensureIndex({ name: 'by_n', fields: { n: 1 }, unique: true })
  await c.insertOne(item(1))
  await t.rejects(c.insertOne(item(1)), DuplicateKeyError, 'its new index holds')
  t.equal((await c.findOne({ n: 1 }))?.n, 1)
  await store.sweep()
  t.same(await keysIn(dataDir), { records: 1, entries: 1 }, 'the sweep deleted every dropped record and entry')
})
