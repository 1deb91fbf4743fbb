import t from 'tap'
import { type Collection, ConflictError, newObjectId, openEmbeddedStore, type StoredRecord } from '../src/index.js'

const store = openEmbeddedStore(t.testdir())
t.teardown(() => store.close())

let counter = 0

/** A fresh collection of `count` records, `n` their position (each with a `_hash` unless `hashed` is false). */
async function seed(count: number, hashed = true) {
  const name = `c${++counter}`
  const ids: string[] = []
  await store.transaction(async (tx) => {
    const c = tx.collection(name)
    for (let n = 0; n < count; n++) {
      const _id = newObjectId()
      ids.push(_id)
      await c.insertOne(hashed ? { _id, n, _hash: `h${n}` } : { _id, n })
    }
  })
  return { name, ids, c: store.collection(name) }
}

t.test('a record the transaction wrote and another writer changed meanwhile fails its commit', async (t) => {
  const cases: Array<[string, boolean, (c: Collection, id: string) => Promise<unknown>]> = [
    ['updated, `_hash` kept', true, (c, id) => c.updateOne({ _id: id }, { $set: { n: 100 } })],
    ['updated, no `_hash`', false, (c, id) => c.updateOne({ _id: id }, { $set: { n: 100 } })],
    ['deleted', true, (c, id) => c.deleteOne({ _id: id })],
  ]
  for (const [label, hashed, write] of cases) {
    const { name, ids, c } = await seed(3, hashed)
    const [id, other] = ids as [string, string]
    const committed = await c.find({})
    await t.rejects(
      store.transaction(async (tx) => {
        await tx.collection(name).updateOne({ _id: other }, { $set: { n: -1 } })
        await tx.collection(name).updateOne({ _id: id }, { $set: { n: -1 } })
        await write(c, id)
      }),
      ConflictError,
      label,
    )
    const after = await c.find({})
    t.same(
      after.find((record) => record._id === other),
      committed.find((record) => record._id === other),
      `${label}: nothing of the transaction is written`,
    )
  }

  const { name, ids, c } = await seed(3)
  const [id, other] = ids as [string, string]
  const inserted = newObjectId()
  await t.rejects(
    store.transaction(async (tx) => {
      await tx.collection(name).insertOne({ _id: inserted, n: -1 })
      await c.insertOne({ _id: inserted, n: 100 })
    }),
    ConflictError,
    'a record inserted meanwhile with the `_id` the transaction inserted',
  )
  t.equal((await c.findOne({ _id: inserted }))?.n, 100)
  await t.rejects(
    store.transaction(async (tx) => {
      await tx.collection(name).updateOne({ _id: id }, { $set: { n: -1 } })
      await c.updateOne({ _id: id }, { $set: { n: 100 } })
      // A second write of the record keeps the version the first one read.
      await tx.collection(name).updateOne({ _id: id }, { $set: { n: -2 } })
    }),
    ConflictError,
    'a change between two writes of one record',
  )
  await store.transaction(async (tx) => {
    await tx.collection(name).updateOne({ _id: id }, { $set: { n: -1 } })
    await c.updateOne({ _id: other }, { $set: { n: 100 } })
  })
  t.equal((await c.findOne({ _id: id }))?.n, -1, 'a change to a record the transaction did not write does not')
})

t.test('a record the transaction deleted can be changed by its caller without failing the commit', async (t) => {
  const { name, ids, c } = await seed(2)
  const [id] = ids as [string]
  await store.transaction(async (tx) => {
    const deleted = (await tx.collection(name).deleteOne({ _id: id })) as StoredRecord
    deleted.n = 'changed by the caller'
  })
  t.equal(await c.findOne({ _id: id }), null)
  t.equal(await c.count({}), 1)
})

t.test('a transaction of 1,000 operations by `_id` reads each record a bounded number of times', async (t) => {
  const { name, ids, c } = await seed(1000)
  const visible = { $or: [{ group: { $exists: false } }, { group: 'g' }] }
  const created: string[] = []
  const readsBefore = store.stats.reads
  // As a bulk call issues them: a read of the document (by `_id`, for a member with their visibility), then
  // its write by `_id`; and creates.
  await store.transaction(async (tx) => {
    const documents = tx.collection(name)
    for (const [i, _id] of ids.entries()) {
      const found = await documents.findOne(i % 2 === 0 ? { _id } : { _id, $and: [visible] })
      if (i % 3 === 0) await documents.deleteOne({ _id })
      else await documents.updateOne({ _id }, { n: Number(found?.n) + 1000 })
      const record = { _id: newObjectId(), n: 2000 + i }
      created.push(record._id)
      await documents.insertOne(record)
    }
  })
  const reads = store.stats.reads - readsBefore
  t.ok(reads <= 4 * ids.length, `${reads} reads for ${ids.length} reads, writes and creates each`)
  t.equal(await c.count({}), 1000 + 1000 - Math.ceil(1000 / 3))
  t.equal(await c.count({ n: { $gte: 2000 } }), 1000, 'every create is written')
  t.same(await c.findOne({ _id: ids[1] as string }), { _id: ids[1], n: 1001 })
  t.equal(await c.findOne({ _id: ids[3] as string }), null)
})
