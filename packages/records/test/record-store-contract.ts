import type { Test } from 'tap'
import { ConflictError, DuplicateKeyError, InvalidQueryError, newObjectId, type RecordStore, type Sort, type StoredRecord } from '../src/index.js'

export interface ContractTarget {
  /** Opens the store on `dataDir`; opening the same dir again must see the same data. */
  open(dataDir: string): Promise<RecordStore>
  /** Reads done so far, when the adapter can tell (the embedded one can). */
  reads?: (store: RecordStore) => number
}

interface Item extends StoredRecord {
  n: number
  group?: string | null
  tags?: string[]
  nested?: { deep: { value: number } }
  _hash?: string
}

/** The behaviour every records adapter must have; run once per adapter. */
export function recordStoreContract(t: Test, target: ContractTarget): void {
  const dataDir = t.testdir()
  let store: RecordStore
  let counter = 0
  const fresh = () => store.collection<Item>(`c${++counter}`)

  t.before(async () => {
    store = await target.open(dataDir)
  })
  t.teardown(() => store.close())

  const seed = async (count: number, shape: (i: number) => { n: number } & Partial<Item>) => {
    const collection = fresh()
    const items: Item[] = []
    for (let i = 0; i < count; i++) items.push(await collection.insertOne({ _id: newObjectId(), ...shape(i) }))
    return { collection, items }
  }

  t.test('CRUD', async (t) => {
    const c = fresh()
    const id = newObjectId()
    t.same(await c.insertOne({ _id: id, n: 1 }), { _id: id, n: 1 })
    await t.rejects(c.insertOne({ _id: id, n: 2 }), DuplicateKeyError)
    t.same(await c.findOne({ _id: id }), { _id: id, n: 1 })
    t.same(await c.updateOne({ _id: id }, { $set: { 'nested.deep.value': 3, group: 'g' } }), { _id: id, n: 1, nested: { deep: { value: 3 } }, group: 'g' })
    t.same(await c.updateOne({ _id: id }, { $unset: { group: true } }), { _id: id, n: 1, nested: { deep: { value: 3 } } })
    t.same(await c.updateOne({ _id: id }, { n: 5 }), { _id: id, n: 5 }, 'replacement keeps _id only')
    t.equal(await c.updateOne({ _id: 'missing' }, { n: 1 }), null)
    t.same(await c.deleteOne({ _id: id }), { _id: id, n: 5 })
    t.equal(await c.deleteOne({ _id: id }), null)
    t.equal(await c.count({}), 0)
    await c.insertOne({ _id: newObjectId(), n: 1 })
    await c.insertOne({ _id: newObjectId(), n: 2 })
    await c.insertOne({ _id: newObjectId(), n: 3 })
    t.equal(await c.deleteMany({ n: { $gte: 2 } }), 2)
    t.equal(await c.count({}), 1)
  })

  t.test('every allowed operator, nested fields and arrays', async (t) => {
    const { collection: c } = await seed(6, (i) => ({
      n: i,
      group: i % 2 === 0 ? 'even' : i === 5 ? null : 'odd',
      tags: i < 3 ? ['a', `t${i}`] : ['b'],
      nested: { deep: { value: i * 10 } }
    }))
    const ns = async (filter: Record<string, unknown>) => (await c.find(filter, { sort: { n: 1 } })).map((item) => item.n)
    t.same(await ns({ n: { $eq: 2 } }), [2])
    t.same(await ns({ n: { $ne: 2 } }), [0, 1, 3, 4, 5])
    t.same(await ns({ n: { $gt: 3 } }), [4, 5])
    t.same(await ns({ n: { $gte: 3 } }), [3, 4, 5])
    t.same(await ns({ n: { $lt: 2 } }), [0, 1])
    t.same(await ns({ n: { $lte: 1 } }), [0, 1])
    t.same(await ns({ n: { $in: [1, 4, 9] } }), [1, 4])
    t.same(await ns({ n: { $nin: [1, 4] } }), [0, 2, 3, 5])
    t.same(await ns({ group: { $exists: false } }), [])
    t.same(await ns({ group: null }), [5])
    t.same(await ns({ group: { $regex: '^OD', $options: 'i' } }), [1, 3])
    t.same(await ns({ $and: [{ n: { $gt: 0 } }, { n: { $lt: 3 } }] }), [1, 2])
    t.same(await ns({ $or: [{ n: 0 }, { n: 5 }] }), [0, 5])
    t.same(await ns({ $nor: [{ n: { $lt: 4 } }] }), [4, 5])
    t.same(await ns({ n: { $not: { $lt: 4 } } }), [4, 5])
    t.same(await ns({ tags: 'a' }), [0, 1, 2], 'equality matches array elements')
    t.same(await ns({ tags: { $elemMatch: { $eq: 't1' } } }), [1])
    t.same(await ns({ tags: { $size: 1 } }), [3, 4, 5])
    t.same(await ns({ tags: { $all: ['a', 't2'] } }), [2])
    t.same(await ns({ group: { $type: 'string' } }), [0, 1, 2, 3, 4])
    t.same(await ns({ 'nested.deep.value': { $gte: 40 } }), [4, 5])
  })

  t.test('sort with ties, projection, skip', async (t) => {
    const { collection: c, items } = await seed(6, (i) => ({ n: i % 2, group: `g${i}` }))
    const ids = items.map((item) => item._id)
    t.same((await c.find({})).map((item) => item._id), ids, 'default order is _id ascending')
    t.same((await c.find({}, { sort: { n: 1 } })).map((item) => item._id), [ids[0], ids[2], ids[4], ids[1], ids[3], ids[5]])
    t.same((await c.find({}, { sort: { n: -1, _id: 1 } })).map((item) => item._id), [ids[1], ids[3], ids[5], ids[0], ids[2], ids[4]])
    t.same((await c.find({}, { sort: { n: 1 }, skip: 2, limit: 2 })).map((item) => item._id), [ids[4], ids[1]])
    t.same(await c.find({ _id: ids[0] }, { projection: { group: 1 } }), [{ _id: ids[0], group: 'g0' }])
    t.same(await c.find({ _id: ids[0] }, { projection: { group: 0 } }), [{ _id: ids[0], n: 0 }])
    t.same(await c.findOne({ _id: ids[0] }, { projection: { _id: 0, n: 1 } }), { n: 0 })
  })

  t.test('keyset pagination under three sorts loses and repeats nothing', async (t) => {
    const { collection: c, items } = await seed(47, (i) => ({
      n: i % 3,
      group: i % 5 === 0 ? null : `g${(i * 7) % 11}`,
      nested: { deep: { value: 47 - i } }
    }))
    await c.ensureIndex({ name: 'by_n', fields: { n: 1 } })
    const sorts: Sort[] = [{}, { n: -1 }, { group: 1, 'nested.deep.value': -1 }]
    for (const sort of sorts) {
      const expected = (await c.find({}, { sort })).map((item) => item._id)
      const seen: string[] = []
      let after: string | undefined
      for (;;) {
        const page = await c.find({}, { sort, limit: 5, after })
        if (page.length === 0) break
        seen.push(...page.map((item) => item._id))
        after = page.at(-1)?._id
      }
      t.same(seen, expected, `pages under ${JSON.stringify(sort)}`)
      t.equal(new Set(seen).size, items.length)
    }
    const filtered = await c.find({ n: 1 }, { sort: { n: 1 }, limit: 3 })
    const rest = await c.find({ n: 1 }, { sort: { n: 1 }, after: filtered.at(-1)?._id })
    t.equal(filtered.length + rest.length, await c.count({ n: 1 }))
    await t.rejects(c.find({}, { after: newObjectId() }), InvalidQueryError)
  })

  t.test('unique and partial unique indexes', async (t) => {
    const c = fresh()
    await c.ensureIndex({ name: 'group_unique', fields: { group: 1 }, unique: true, partial: { group: { $exists: true } } })
    await c.ensureIndex({ name: 'group_unique', fields: { group: 1 }, unique: true, partial: { group: { $exists: true } } })
    await c.insertOne({ _id: newObjectId(), n: 1, group: 'a' })
    await c.insertOne({ _id: newObjectId(), n: 2 })
    await c.insertOne({ _id: newObjectId(), n: 3 })
    const error = await c.insertOne({ _id: newObjectId(), n: 4, group: 'a' }).catch((e: unknown) => e)
    t.ok(error instanceof DuplicateKeyError)
    t.equal((error as DuplicateKeyError).index, 'group_unique')
    const other = await c.insertOne({ _id: newObjectId(), n: 5, group: 'b' })
    await t.rejects(c.updateOne({ _id: other._id }, { $set: { group: 'a' } }), DuplicateKeyError)
    await c.updateOne({ _id: other._id }, { $unset: { group: 1 } })
    await c.insertOne({ _id: newObjectId(), n: 6, group: 'b' })
    t.equal(await c.count({}), 5)
    t.same((await c.find({ group: 'a' })).map((item) => item.n), [1])

    const d = fresh()
    await d.insertOne({ _id: newObjectId(), n: 1 })
    await d.insertOne({ _id: newObjectId(), n: 1 })
    await t.rejects(d.ensureIndex({ name: 'n_unique', fields: { n: 1 }, unique: true }), DuplicateKeyError)
    await d.insertOne({ _id: newObjectId(), n: 1 })
  })

  t.test('a compound index answers filter + sort touching only matching entries', async (t) => {
    const { collection: c, items } = await seed(300, (i) => ({ n: (i * 37) % 100, group: i % 30 === 0 ? 'rare' : 'common' }))
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: -1 } })
    const before = target.reads?.(store)
    const page = await c.find({ group: 'rare' }, { sort: { n: -1 }, limit: 4 })
    const expected = items.filter((item) => item.group === 'rare').sort((a, b) => b.n - a.n || (a._id < b._id ? 1 : -1))
    t.same(page.map((item) => item._id), expected.slice(0, 4).map((item) => item._id))
    const next = await c.find({ group: 'rare' }, { sort: { n: -1 }, limit: 100, after: page.at(-1)?._id })
    t.same(next.map((item) => item._id), expected.slice(4).map((item) => item._id))
    if (before !== undefined && target.reads) {
      const reads = target.reads(store) - before
      t.ok(reads <= 2 * (expected.length + 2) + 2, `read ${reads} entries for ${expected.length} matches out of ${items.length}`)
    }
    const idOrder = target.reads?.(store)
    await c.find({}, { limit: 5 })
    if (idOrder !== undefined && target.reads) t.ok(target.reads(store) - idOrder <= 6, 'a default-order page reads about limit records')
  })

  t.test('optimistic concurrency', async (t) => {
    const c = fresh()
    const id = newObjectId()
    await c.insertOne({ _id: id, n: 1, _hash: 'h1' })
    t.same(await c.updateOne({ _id: id }, { $set: { n: 2, _hash: 'h2' } }, { expectedHash: 'h1' }), { _id: id, n: 2, _hash: 'h2' })
    await t.rejects(c.updateOne({ _id: id }, { $set: { n: 3 } }, { expectedHash: 'h1' }), ConflictError)
    await t.rejects(c.deleteOne({ _id: id }, { expectedHash: 'h1' }), ConflictError)
    t.equal((await c.findOne({ _id: id }))?.n, 2)
  })

  t.test('concurrent writers', async (t) => {
    const c = fresh()
    const id = newObjectId()
    await c.insertOne({ _id: id, n: 0, _hash: '0' })
    const results = await Promise.allSettled(Array.from({ length: 10 }, () =>
      c.updateOne({ _id: id }, { $set: { n: 1, _hash: '1' } }, { expectedHash: '0' })))
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one guarded writer wins')
    await Promise.all(Array.from({ length: 50 }, (_, i) => c.insertOne({ _id: newObjectId(), n: i })))
    t.equal(await c.count({}), 51)
  })

  t.test('transactions commit together or not at all', async (t) => {
    const name = `c${++counter}`
    const first = newObjectId()
    await store.transaction(async (tx) => {
      const c = tx.collection<Item>(name)
      await c.insertOne({ _id: first, n: 1 })
      await c.insertOne({ _id: newObjectId(), n: 2 })
      t.equal(await c.count({}), 2, 'a transaction reads its own writes')
    })
    const c = store.collection<Item>(name)
    t.equal(await c.count({}), 2)
    await t.rejects(store.transaction(async (tx) => {
      await tx.collection<Item>(name).updateOne({ _id: first }, { $set: { n: 10 } })
      await tx.collection<Item>(name).insertOne({ _id: first, n: 3 })
    }), DuplicateKeyError)
    t.equal((await c.findOne({ _id: first }))?.n, 1, 'the failed transaction left nothing behind')
  })

  t.test('reopening keeps records and indexes', async (t) => {
    const c = fresh()
    await c.ensureIndex({ name: 'n_unique', fields: { n: 1 }, unique: true })
    await c.insertOne({ _id: newObjectId(), n: 1 })
    await store.close()
    store = await target.open(dataDir)
    const again = store.collection<Item>(`c${counter}`)
    t.equal(await again.count({}), 1)
    await t.rejects(again.insertOne({ _id: newObjectId(), n: 1 }), DuplicateKeyError)
    await again.dropIndex('n_unique')
    await again.insertOne({ _id: newObjectId(), n: 1 })
    await store.dropCollection(`c${counter}`)
    t.equal(await again.count({}), 0)
  })
}
