import { join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import {
  DuplicateKeyError,
  newObjectId,
  openEmbeddedStore,
  QueryTooLargeError,
  type EmbeddedRecordStore,
  type StoredRecord,
} from '../src/index.js'

interface Item extends StoredRecord {
  n: number
  category: string
  score: number
  payload: string
}

// Seeds of 20,000 records, several times over.
t.setTimeout(120_000)

const item = (i: number): Item => ({
  _id: newObjectId(),
  n: i,
  category: `c${i % 10}`,
  score: (i * 7919) % 1000,
  payload: 'x'.repeat(100),
})

/** Keys left in the store's shared databases, read beside the store (lmdb shares the environment in a process). */
async function keysIn(dataDir: string): Promise<{ records: number; entries: number }> {
  const env = open({ path: join(dataDir, 'records'), maxDbs: 8 })
  const count = (name: string) => env.openDB({ name, keyEncoding: 'ordered-binary' }).getKeysCount()
  const counts = { records: count('records'), entries: count('entries') }
  await env.close()
  return counts
}

async function seed(store: EmbeddedRecordStore, name: string, count: number): Promise<Item[]> {
  const items = store.collection<Item>(name)
  const seeded: Item[] = []
  for (let i = 0; i < count; i += 500) {
    const batch: Promise<Item>[] = []
    for (let j = i; j < Math.min(count, i + 500); j++) batch.push(items.insertOne(item(j)))
    seeded.push(...(await Promise.all(batch)))
  }
  return seeded
}

t.test('an index is built in chunks: reads are answered meanwhile, writes are kept in it', async (t) => {
  const store = openEmbeddedStore(t.testdir())
  t.teardown(() => store.close())
  const items = store.collection<Item>('items')
  const seeded = await seed(store, 'items', 20_000)
  const order: string[] = []
  const built = items.ensureIndex({ name: 'category_score', fields: { category: 1, score: -1 } }).then(() => {
    order.push('built')
  })
  // The definition is stored first, marked building.
  while ((await items.indexes()).length === 0) await new Promise((resolve) => setImmediate(resolve))
  t.same(await items.indexes(), [{ name: 'category_score', fields: { category: 1, score: -1 }, state: 'building' }])
  const read = items.findOne({ _id: seeded[123]?._id as string }).then((found) => {
    order.push('read')
    return found
  })
  const written = items.insertOne({ ...item(20_000), category: 'late' }).then((record) => {
    order.push('written')
    return record
  })
  t.equal((await read)?._id, seeded[123]?._id)
  const late = await written
  await built
  t.same(order, ['read', 'written', 'built'], 'a read and a write issued after the build began finish before it')
  t.same(await items.indexes(), [{ name: 'category_score', fields: { category: 1, score: -1 }, state: 'ready' }])
  const before = store.stats.reads
  t.same(
    (await items.find({ category: 'late' }, { sort: { score: -1 }, limit: 5 })).map((record) => record._id),
    [late._id],
    'the write made during the build is in the index',
  )
  t.ok(store.stats.reads - before <= 4, 'the ready index answers the query')
})

t.test('a unique index over duplicates is refused and leaves nothing behind', async (t) => {
  const dataDir = t.testdir()
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection<Item>('items')
  await seed(store, 'items', 2000)
  await t.rejects(items.ensureIndex({ name: 'category', fields: { category: 1 }, unique: true }), DuplicateKeyError)
  t.same(await items.indexes(), [])
  await items.insertOne(item(0))
  await store.sweep()
  t.same(await keysIn(dataDir), { records: 2001, entries: 0 })
})

t.test('a long scan gives the event loop a turn: a read issued after it resolves first', async (t) => {
  const store = openEmbeddedStore(t.testdir())
  t.teardown(() => store.close())
  const items = store.collection<Item>('items')
  const seeded = await seed(store, 'items', 20_000)
  const order: string[] = []
  const scan = items.find({ payload: 'absent' }, { limit: 1 }).then((found) => {
    order.push('scan')
    return found
  })
  const counted = items.count({ payload: 'absent' }).then((count) => {
    order.push('count')
    return count
  })
  const read = items.findOne({ _id: seeded[5]?._id as string }).then(() => order.push('read'))
  await Promise.all([scan, counted, read])
  t.same(await scan, [])
  t.equal(await counted, 0)
  t.equal(order[0], 'read', 'the read did not wait for the scans')
})

t.test('the query budget refuses what would hold too much, up front where counts tell', async (t) => {
  const store = openEmbeddedStore(t.testdir(), { queryMemoryBudget: 20_000 })
  t.teardown(() => store.close())
  const items = store.collection<Item>('items')
  await seed(store, 'items', 2000)
  const refusal = async (query: Promise<unknown>) => {
    const before = store.stats.reads
    const error = await query.catch((caught: unknown) => caught)
    t.ok(error instanceof QueryTooLargeError, String(error))
    return { message: (error as Error).message, reads: store.stats.reads - before }
  }

  const unindexed = await refusal(items.find({}, { sort: { score: 1 }, limit: 20 }))
  t.match(unindexed.message, 'sort on `score` needs an index on { score: 1 }')
  t.ok(unindexed.reads <= 1, `refused from the collection's size, ${unindexed.reads} reads`)
  const filtered = await refusal(items.find({ n: { $gte: 0 } }, { sort: { score: -1 }, limit: 20 }))
  t.match(filtered.message, '{ score: -1, n: 1 }')
  t.ok(filtered.reads < 2000, `stopped once past the budget, ${filtered.reads} reads`)
  t.match(
    (await refusal(items.find({ category: 'c1' }, { sort: { score: 1 }, limit: 20 }))).message,
    'sort on `score` needs an index on { category: 1, score: 1 }',
  )
  t.match((await refusal(items.find({}, { skip: 1500, limit: 20 }))).message, /skip 1500/)
  t.match((await refusal(items.count({ score: { $gt: 10 } }))).message, 'an index on { score: 1 }')

  t.equal((await items.find({}, { skip: 100, limit: 20 })).length, 20, 'a small skip is answered')
  t.equal((await items.find({ n: { $lt: 50 } }, { sort: { score: 1 } })).length, 50, 'so are few matches to sort')
  t.equal(await items.count({}), 2000)
  await items.ensureIndex({ name: 'category_score', fields: { category: 1, score: 1 } })
  await items.ensureIndex({ name: 'score', fields: { score: 1 } })
  t.equal((await items.find({ category: 'c1' }, { sort: { score: 1 }, limit: 20 })).length, 20, 'indexed: answered')
  t.equal((await items.find({}, { sort: { score: 1 }, limit: 20 })).length, 20)
  t.equal(await items.count({ category: 'c1' }), 200)
  t.equal(await items.count({ score: { $gt: 10 } }), 1978, 'a range the index answers is counted from its entries')
  const wide = await refusal(items.count({ score: { $gte: 0 }, n: { $gte: 0 } }))
  t.match(wide.message, 'an index on { score: 1, n: 1 }')
  t.ok(wide.reads <= 1, `refused from the range's size, ${wide.reads} reads`)
  t.equal(await items.count({ score: { $lt: 10 }, n: { $gte: 1000 } }), 10, "only the range's candidates count")
  t.equal((await items.find({ score: { $lt: 10 }, n: { $gte: 1000 } }, { sort: { n: 1 } })).length, 10)
})

t.test(
  "a query the budget would refuse in memory is answered by a walk in the sort's order when one exists",
  async (t) => {
    const store = openEmbeddedStore(t.testdir(), { queryMemoryBudget: 20_000 })
    t.teardown(() => store.close())
    const items = store.collection<Item>('items')
    const records = await seed(store, 'items', 2000)
    await items.ensureIndex({ name: 'category', fields: { category: 1 } })
    await items.ensureIndex({ name: 'score', fields: { score: 1 } })
    const ids = (found: Item[]) => found.map((record) => record._id)
    const byScore = (a: Item, b: Item) => a.score - b.score || (a._id < b._id ? -1 : 1)
    const c1 = records.filter((record) => record.category === 'c1').sort(byScore)
    // 200 matches of about 180 bytes: past the budget held in memory; the walk down `score` holds only the page.
    t.same(ids(await items.find({ category: 'c1' }, { sort: { score: 1 } })), ids(c1), 'every match, past the budget')
    t.same(ids(await items.find({ category: 'c1' }, { sort: { score: 1 }, limit: 150 })), ids(c1.slice(0, 150)))
    // A match the index does not answer: the budget is crossed while matching, then the walk answers.
    const filter = { category: 'c1', n: { $gte: 0 } }
    t.same(ids(await items.find(filter, { sort: { score: 1 } })), ids(c1), 'crossed while matching')
    // Under the `_id` order the primary key is the walk.
    t.equal((await items.find({ score: { $gte: 0 } })).length, 2000, 'a range the index answers, in `_id` order')
    t.equal((await items.find({ score: { $gte: 0 }, n: { $gte: 0 } }, { sort: { _id: -1 } })).length, 2000)
    // No walk in the sort's order: refused, naming the index that would answer.
    const refused = await items.find({ category: 'c1' }, { sort: { n: 1 } }).catch((error: unknown) => error)
    t.ok(refused instanceof QueryTooLargeError)
    t.match((refused as Error).message, '{ category: 1, n: 1 }')
  },
)

t.test(
  'an index on the filter, a sort on another field: a bounded heap, records decoded only when returned',
  async (t) => {
    const store = openEmbeddedStore(t.testdir(), { queryMemoryBudget: 20_000 })
    t.teardown(() => store.close())
    const items = store.collection<Item & { tags?: unknown }>('items')
    const records = await seed(store, 'items', 2000)
    await items.ensureIndex({ name: 'category', fields: { category: 1 } })
    // 200 matches of about 180 bytes each: more than the budget, were they all held.
    const page = await items.find({ category: 'c3' }, { sort: { score: -1 }, limit: 20 })
    const expected = records
      .filter((record) => record.category === 'c3')
      .sort((a, b) => b.score - a.score || (a._id < b._id ? 1 : -1))
      .slice(0, 20)
    t.same(page, expected, 'the first 20 by score, ties by _id')
    const refused = await items.find({ category: 'c3' }, { sort: { score: -1 }, limit: 150 }).catch((e: unknown) => e)
    t.ok(refused instanceof QueryTooLargeError, 'the budget applies to what the heap holds')

    // Arrays in the sort field order as `compareValues` orders them (whole arrays, after objects), as in memory.
    const tagged = store.collection<StoredRecord>('tagged')
    await tagged.ensureIndex({ name: 'kind', fields: { kind: 1 } })
    const shapes: unknown[] = [[3, 1], [2], [], 'b', 5, null, undefined, { x: 1 }, [1, [0]], true, ['a', 'b']]
    for (const [i, tags] of shapes.entries()) {
      for (const kind of ['k', 'other']) {
        await tagged.insertOne({ _id: newObjectId(), kind, n: i, ...(tags === undefined ? {} : { tags }) })
      }
    }
    for (const direction of [1, -1] as const) {
      const all = await tagged.find({ kind: 'k' }, { sort: { tags: direction } })
      const inMemory = await tagged.find({ kind: 'k', n: { $gte: 0 } }, { sort: { tags: direction } })
      t.same(all, inMemory)
      t.same(await tagged.find({ kind: 'k' }, { sort: { tags: direction }, limit: 4 }), all.slice(0, 4))
      t.same(await tagged.find({ kind: 'k', n: { $gte: 0 } }, { sort: { tags: direction }, limit: 4 }), all.slice(0, 4))
      t.same(
        await tagged.find({ kind: 'k' }, { sort: { tags: direction }, limit: 4, after: all[3]?._id }),
        all.slice(4, 8),
      )
    }
  },
)

t.test(
  "the heap reads each candidate's entry and the page's records, until the range is kept; decodes none",
  async (t) => {
    const dataDir = t.testdir()
    const store = openEmbeddedStore(dataDir)
    t.teardown(() => store.close())
    const items = store.collection<Item>('items')
    let records = await seed(store, 'items', 2000)
    await items.ensureIndex({ name: 'category', fields: { category: 1 } })
    const expected = (category: string, all: Item[]) =>
      all
        .filter((record) => record.category === category)
        .sort((a, b) => b.score - a.score || (a._id < b._id ? 1 : -1))
        .slice(0, 20)
        .map((record) => record._id)
    const page = async (category: string) => {
      const before = store.stats.reads
      const parse = JSON.parse
      let decoded = 0
      JSON.parse = (...args: Parameters<typeof JSON.parse>) => {
        decoded++
        return parse(...args)
      }
      try {
        const found = await items.findText({ category }, { sort: { score: -1 }, limit: 20 })
        return { ids: found.map((found) => found._id), reads: store.stats.reads - before, decoded }
      } finally {
        JSON.parse = parse
      }
    }

    // 200 candidates: each entry read the first time (it carries `score`); then the range is kept whole, and only
    // the 20 records of the page are read.
    const first = await page('c3')
    t.same(first.ids, expected('c3', records))
    t.equal(first.decoded, 0, 'no record decoded')
    t.ok(first.reads <= 200 + 20 + 2, `first page: ${first.reads} reads`)
    const again = await page('c3')
    t.same(again.ids, first.ids)
    t.ok(again.reads <= 20 + 2, `again: ${again.reads} reads`)

    // This process's writes drop the kept ranges and the values of the records they change, not the others'.
    const top = records.find((record) => record._id === first.ids[0]) as Item
    await items.updateOne({ _id: top._id }, { $set: { score: -1 } })
    top.score = -1
    const moved = await page('c3')
    t.same(moved.ids, expected('c3', records), 'an updated score is read again')
    t.ok(moved.reads <= 200 + 20 + 4, `after a write: ${moved.reads} reads`)
    const ascending = await items.findText({ category: 'c3' }, { sort: { score: 1 }, limit: 3 })
    t.same(
      ascending.map((found) => found._id),
      records
        .filter((record) => record.category === 'c3')
        .sort((a, b) => a.score - b.score || (a._id < b._id ? -1 : 1))
        .slice(0, 3)
        .map((record) => record._id),
      'the other direction reads the same kept values',
    )
    // A write that is refused changes nothing.
    await items.ensureIndex({ name: 'n', fields: { n: 1 }, unique: true })
    const refused = await items.insertOne({ ...item(5), n: 0, category: 'c3', score: 5000 }).catch((e: unknown) => e)
    t.ok(refused instanceof DuplicateKeyError)
    t.same((await page('c3')).ids, expected('c3', records))

    // Another process's writes (another store on the data dir keeps its own values) are followed as the store's
    // journal tells them: a record added to the range, one moved out of it, one whose score changed.
    const other = openEmbeddedStore(dataDir)
    t.teardown(() => other.close())
    const theirs = other.collection<Item>('items')
    const added = { ...item(100_000), category: 'c3', score: 999_999 }
    await theirs.insertOne(added)
    records.push(added)
    const [, movedOut, rescored] = expected('c3', records)
    await theirs.updateOne({ _id: movedOut as string }, { $set: { category: 'c4' } })
    await theirs.updateOne({ _id: rescored as string }, { $set: { score: -5 } })
    records = records.map((record) =>
      record._id === movedOut
        ? { ...record, category: 'c4' }
        : record._id === rescored
          ? { ...record, score: -5 }
          : record,
    )
    // Then a write of this process, which follows theirs first.
    const mine = expected('c3', records)[3] as string
    await items.updateOne({ _id: mine }, { $set: { score: 4242 } })
    records = records.map((record) => (record._id === mine ? { ...record, score: 4242 } : record))
    const seen = await page('c3')
    t.same(seen.ids, expected('c3', records), "another process's writes are seen")
    t.ok(seen.reads <= 20 + 2, `followed, not read again: ${seen.reads} reads`)

    // More writes of theirs than the journal keeps: what was kept goes, and the range is read again.
    for (let i = 0; i < 65; i++) {
      const more = { ...item(200_000 + i), category: 'c9' }
      await theirs.insertOne(more)
      records.push(more)
    }
    const past = await page('c3')
    t.same(past.ids, expected('c3', records), 'seen past the journal')
    t.ok(past.reads >= 200 && past.reads <= 200 + 20 + 2, `read again, off the entries: ${past.reads} reads`)
  },
)

t.test(
  'writes move records in and out of a kept range: the next page is right and reads only its records',
  async (t) => {
    const store = openEmbeddedStore(t.testdir())
    t.teardown(() => store.close())
    const items = store.collection<Item>('items')
    let records = await seed(store, 'items', 2000)
    await items.ensureIndex({ name: 'category', fields: { category: 1 } })
    const expected = (category: string) =>
      records
        .filter((record) => record.category === category)
        .sort((a, b) => b.score - a.score || (a._id < b._id ? 1 : -1))
        .slice(0, 20)
        .map((record) => record._id)
    const page = async (category: string) => {
      const before = store.stats.reads
      const found = await items.findText({ category }, { sort: { score: -1 }, limit: 20 })
      return { ids: found.map((found) => found._id), reads: store.stats.reads - before }
    }
    // Every category read once: each range kept whole.
    for (let c = 0; c < 10; c++) t.same((await page(`c${c}`)).ids, expected(`c${c}`))

    const replace = (next: Item) => (records = records.map((record) => (record._id === next._id ? next : record)))
    const [inC3, outOfC3, dropped] = records.filter((record) => record.category === 'c3')
    const intoC3 = records.find((record) => record.category === 'c5') as Item
    await items.updateOne({ _id: (inC3 as Item)._id }, { $set: { score: 5000 } })
    replace({ ...(inC3 as Item), score: 5000 })
    await items.updateOne({ _id: intoC3._id }, { $set: { category: 'c3', score: 4000 } })
    replace({ ...intoC3, category: 'c3', score: 4000 })
    await items.updateOne({ _id: (outOfC3 as Item)._id }, { $set: { category: 'c5', score: 6000 } })
    replace({ ...(outOfC3 as Item), category: 'c5', score: 6000 })
    await items.deleteOne({ _id: (dropped as Item)._id })
    records = records.filter((record) => record._id !== (dropped as Item)._id)
    const created = await items.insertOne({ ...item(7), category: 'c3', score: 3000 })
    records.push(created)

    for (const category of ['c3', 'c5', 'c7']) {
      const after = await page(category)
      t.same(after.ids, expected(category), `${category} after the writes`)
      t.ok(after.reads <= 20 + 2, `${category}: only the page's records read (${after.reads} reads)`)
    }
    t.equal((await page('c3')).ids[0], (inC3 as Item)._id, 'the raised score leads')
    t.equal((await page('c5')).ids[0], (outOfC3 as Item)._id, 'the record moved out leads where it went')
  },
)

t.test('a drop cut short by closing is finished by the next open', async (t) => {
  const dataDir = t.testdir()
  let store = openEmbeddedStore(dataDir)
  const items = store.collection<Item>('items')
  await items.ensureIndex({ name: 'category_score', fields: { category: 1, score: 1 } })
  await seed(store, 'items', 10_000)
  await store.dropCollection('items')
  await store.close()
  store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  t.equal(await store.collection('items').count({}), 0)
  await store.sweep()
  t.same(await keysIn(dataDir), { records: 0, entries: 0 })
})

t.test(
  'a top-level $and of plain terms plans as those terms: a scope added to a filter still uses the index',
  async (t) => {
    const store = openEmbeddedStore(t.testdir())
    t.teardown(() => store.close())
    const items = store.collection<Item>('items')
    const seeded = await seed(store, 'items', 2_000)
    await items.ensureIndex({ name: 'category_score', fields: { category: 1, score: -1 } })
    const expected = seeded
      .filter((record) => record.category === 'c3' && record.score > 900)
      .sort((a, b) => b.score - a.score || (a._id < b._id ? 1 : -1))
      .map((record) => record._id)
    const scoped = { $and: [{ category: 'c3' }, { score: { $gt: 900 } }] }
    const before = store.stats.reads
    const found = await items.find(scoped, { sort: { score: -1 } })
    t.same(
      found.map((record) => record._id),
      expected,
    )
    t.ok(store.stats.reads - before <= 2 * expected.length + 4, 'an entry and a record per match: no scan')
    t.equal(await items.count(scoped), expected.length)
    // A path in two clauses stays an `$and` (answered, by a scan).
    const twice = { $and: [{ score: { $gt: 900 } }, { score: { $lt: 950 } }], category: 'c3' }
    t.same(
      (await items.find(twice, { sort: { score: -1 } })).map((record) => record._id),
      seeded
        .filter((record) => record.category === 'c3' && record.score > 900 && record.score < 950)
        .sort((a, b) => b.score - a.score || (a._id < b._id ? 1 : -1))
        .map((record) => record._id),
    )
  },
)

t.test(
  'a ranked query reads its sort values off the index entries; entries of older code (null) are read right',
  async (t) => {
    const dataDir = t.testdir()
    const store = openEmbeddedStore(dataDir)
    t.teardown(() => store.close())
    const items = store.collection<Item & Record<string, unknown>>('items')
    await items.ensureIndex({ name: 'category', fields: { category: 1 } })
    await items.ensureIndex({ name: 'tags', fields: { tags: 1 } })
    await seed(store, 'items', 2_000)
    // One record of many fields (what it carries stays within the cap), one of a long array (none carried).
    const wide: Item & Record<string, unknown> = { ...item(2_000), tags: ['wide'] }
    for (let f = 0; f < 60; f++) wide[`a_rather_long_field_name_${f}`] = f
    await items.insertOne(wide)
    await items.insertOne({ ...item(2_001), tags: Array.from({ length: 500 }, (_, i) => `tag ${i}`) })

    const env = open({ path: join(dataDir, 'records'), maxDbs: 8 })
    t.teardown(() => env.close())
    const raw = env.openDB<Buffer, Array<string | number>>({
      name: 'entries',
      keyEncoding: 'ordered-binary',
      encoding: 'binary',
    })
    const sizes = [...raw.getRange()].map(({ value }) => value.length)
    t.ok(Math.max(...sizes) <= 384, `an entry's value takes at most 384 bytes (${Math.max(...sizes)})`)
    const entries = env.openDB<unknown, Array<string | number>>({ name: 'entries', keyEncoding: 'ordered-binary' })
    const nulls = [...entries.getRange()].filter(({ value }) => value === null).length
    t.equal(nulls, 500, "the long array's entries carry nothing")

    // 200 candidates in c3: a fresh handle (nothing kept) reads their entries and the page's records only.
    const query = async (reader: EmbeddedRecordStore) => {
      const before = reader.stats.reads
      const page = await reader.collection<Item>('items').find({ category: 'c3' }, { sort: { score: -1 }, limit: 20 })
      return { ids: page.map((record) => record._id), reads: reader.stats.reads - before }
    }
    const expected = (await items.find({ $and: [{ category: 'c3' }] }, { sort: { score: -1 } }))
      .slice(0, 20)
      .map((record) => record._id)
    const covered = openEmbeddedStore(dataDir)
    const first = await query(covered)
    await covered.close()
    t.same(first.ids, expected)
    t.ok(first.reads <= 200 + 20 + 1, `read ${first.reads}: the entries and the page`)

    // As an older data directory holds them: every non-unique entry's value null.
    env.transactionSync(() => {
      for (const { key } of entries.getRange()) entries.putSync(key, null)
    })
    const older = openEmbeddedStore(dataDir)
    const fallback = await query(older)
    await older.close()
    t.same(fallback.ids, expected, 'entries without values: the same page, each candidate read')
    t.ok(fallback.reads >= 200 + 200, `read ${fallback.reads}`)

    // A write of a carried field gives the record's entries their values again, in every index.
    const top = expected[0] as string
    await items.updateOne({ _id: top }, { $set: { score: -5 } })
    const rewritten = [...entries.getRange()].filter(({ key, value }) => key.at(-1) === top && value !== null)
    t.equal(rewritten.length, 2, 'its category and tags entries')
    const reference = await items.find({ $and: [{ category: 'c3' }] }, { sort: { score: -1 }, limit: 20 })
    t.notOk(
      reference.some((record) => record._id === top),
      'its new score puts it past the page',
    )
    const again = openEmbeddedStore(dataDir)
    t.same(
      (await query(again)).ids,
      reference.map((record) => record._id),
    )
    await again.close()
  },
)

t.test('after a write of older code, which leaves entries as they were, no entry value is ranked on', async (t) => {
  const dataDir = t.testdir()
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection<Item>('items')
  await items.ensureIndex({ name: 'category', fields: { category: 1 } })
  await seed(store, 'items', 1_000)
  const page = async (reader: EmbeddedRecordStore) => {
    const before = reader.stats.reads
    const found = await reader.collection<Item>('items').find({ category: 'c3' }, { sort: { score: -1 }, limit: 5 })
    return { ids: found.map((record) => record._id), reads: reader.stats.reads - before }
  }
  const expected = (await items.find({ $and: [{ category: 'c3' }] }, { sort: { score: -1 }, limit: 5 })).map(
    (record) => record._id,
  )
  const top = expected[0] as string

  // What an older version's update of `score` leaves: the record's new score (here: as it was), its entry's
  // value as it was before (here: a score that would take it off the page), and a size without the mark.
  const env = open({ path: join(dataDir, 'records'), maxDbs: 8 })
  t.teardown(() => env.close())
  const meta = env.openDB<unknown, Array<string | number>>({ name: 'meta', keyEncoding: 'ordered-binary' })
  const entries = env.openDB<unknown, Array<string | number>>({ name: 'entries', keyEncoding: 'ordered-binary' })
  const { id: collectionId } = meta.get(['c', 'items']) as { id: number }
  env.transactionSync(() => {
    const [entry] = [...entries.getRange()].filter(({ key }) => key.at(-1) === top)
    const value = entry?.value as Array<string | number>
    value[value.indexOf('score') + 2] = -1
    entries.putSync((entry as { key: Array<string | number> }).key, value)
    const size = meta.get(['n', collectionId]) as number[]
    meta.putSync(['n', collectionId], size.slice(0, 3))
  })

  const afterOlder = openEmbeddedStore(dataDir)
  t.same((await page(afterOlder)).ids, expected, 'the records are read, not the stale entry')
  await afterOlder.close()

  // This version's next write marks the index stale: still answered from the records.
  await items.insertOne(item(1_000))
  const { indexes } = meta.get(['c', 'items']) as { indexes: Array<{ spec: { name: string }; carries?: string }> }
  t.equal(indexes.find((index) => index.spec.name === 'category')?.carries, 'stale')
  const stale = openEmbeddedStore(dataDir)
  const fromRecords = await page(stale)
  await stale.close()
  t.same(fromRecords.ids, expected)
  t.ok(fromRecords.reads >= 2 * 100, `read ${fromRecords.reads}: every candidate's record`)

  // Ensured again (as every start and `quire upgrade` do), its entries are written again from the records in the
  // background: the ensure does not wait, the index answers from the records meanwhile; then it carries this
  // version's values, the stale one fixed, and is ranked on again.
  await items.ensureIndex({ name: 'category', fields: { category: 1 } })
  const carries = () =>
    (meta.get(['c', 'items']) as { indexes: Array<{ spec: { name: string }; carries?: string }> }).indexes.find(
      (index) => index.spec.name === 'category',
    )?.carries
  t.equal(carries(), 'refreshing', 'the ensure resolved before the refresh')
  t.same((await page(store)).ids, expected, 'answered meanwhile')
  await store.indexWork()
  t.equal(carries(), 'kept')
  const [entry] = [...entries.getRange()].filter(({ key }) => key.at(-1) === top)
  const value = entry?.value as Array<string | number>
  t.not(value[value.indexOf('score') + 2], -1, 'the stale value is gone')
  const rebuilt = openEmbeddedStore(dataDir)
  const fromEntries = await page(rebuilt)
  await rebuilt.close()
  t.same(fromEntries.ids, expected)
  t.ok(fromEntries.reads <= 100 + 5 + 1, `read ${fromEntries.reads}: the entries and the page`)
})

t.test('strings and field names with lone surrogates rank off the entries as a full sort ranks them', async (t) => {
  const dataDir = t.testdir()
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection('items')
  await items.ensureIndex({ name: 'category', fields: { category: 1 } })
  const scores = ['a\ud800', 'a\ufffd', 'a\uffff', 'a\ud7ff', 'a\u{1F600}', 'a']
  await Promise.all(scores.map((score, i) => items.insertOne({ _id: `r${i}`, category: 'c', score, '\udc00': i })))
  const fresh = openEmbeddedStore(dataDir)
  t.teardown(() => fresh.close())
  const sorts: Array<Record<string, 1 | -1>> = [{ score: 1 }, { score: -1 }, { '\udc00': -1 }]
  for (const sort of sorts) {
    const expected = (await items.find({ $and: [{ category: 'c' }] }, { sort })).map((record) => record._id)
    const found = await fresh.collection('items').find({ category: 'c' }, { sort })
    t.same(
      found.map((record) => record._id),
      expected,
      JSON.stringify(sort),
    )
  }
})

t.test(
  'the fields a store leaves uncarried are named in entries without values, as its first open recorded',
  async (t) => {
    const dataDir = t.testdir()
    const first = openEmbeddedStore(dataDir, { uncarriedFields: ['owner'] })
    const items = first.collection<Item & { owner: string }>('items')
    await items.ensureIndex({ name: 'category', fields: { category: 1 } })
    for (let i = 0; i < 200; i++) await items.insertOne({ ...item(i), owner: `user-${(i * 37) % 200}` })
    await first.close()
    // Opened again asking for none: the recorded list holds, for this write as for the first ones.
    const store = openEmbeddedStore(dataDir, { uncarriedFields: [] })
    t.teardown(() => store.close())
    const reopened = store.collection<Item & { owner: string }>('items')
    await reopened.insertOne({ ...item(200), owner: 'user-200' })

    const env = open({ path: join(dataDir, 'records'), maxDbs: 8 })
    t.teardown(() => env.close())
    const entries = env.openDB<unknown, Array<string | number>>({ name: 'entries', keyEncoding: 'ordered-binary' })
    const values = [...entries.getRange()].map(({ value }) => value as Array<string | number>)
    t.equal(values.length, 201)
    t.ok(
      values.every((value) => value[value.indexOf('owner') + 1] === 0 && value[value.indexOf('score') + 1] !== 0),
      'every entry names owner without its value and carries score',
    )

    // A sort on the uncarried field reads the candidates' records and ranks them right.
    const page = await reopened.find({ category: 'c3' }, { sort: { owner: -1 }, limit: 5 })
    const all = await reopened.find({ $and: [{ category: 'c3' }] })
    const expected = all
      .map((record) => record.owner)
      .sort()
      .reverse()
      .slice(0, 5)
    t.same(
      page.map((record) => record.owner),
      expected,
    )
  },
)

t.test('a stale index refreshed while writes go on ranks every record on its value now', async (t) => {
  const dataDir = t.testdir()
  const first = openEmbeddedStore(dataDir)
  t.teardown(() => first.close())
  await first.collection<Item>('items').ensureIndex({ name: 'category', fields: { category: 1 } })
  const seeded = await seed(first, 'items', 2_000)
  // A size without the mark, as older code leaves it: the next write makes the index stale.
  const env = open({ path: join(dataDir, 'records'), maxDbs: 8 })
  t.teardown(() => env.close())
  const meta = env.openDB<unknown, Array<string | number>>({ name: 'meta', keyEncoding: 'ordered-binary' })
  const { id: collectionId } = meta.get(['c', 'items']) as { id: number }
  await env.transaction(() => {
    const size = meta.get(['n', collectionId]) as number[]
    meta.putSync(['n', collectionId], size.slice(0, 3))
  })
  await first.collection<Item>('items').insertOne(item(2_000))
  const carries = () =>
    (meta.get(['c', 'items']) as { indexes: Array<{ spec: { name: string }; carries?: string }> }).indexes.find(
      (index) => index.spec.name === 'category',
    )?.carries

  // A refresh cut short by closing (a stop, a restart) stays `refreshing`; the next open's ensure takes it up.
  await first.collection<Item>('items').ensureIndex({ name: 'category', fields: { category: 1 } })
  await first.close()
  t.equal(carries(), 'refreshing')
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection<Item>('items')

  // Several chunks, with updates of the carried sort field between them.
  const refresh = items.ensureIndex({ name: 'category', fields: { category: 1 } })
  await Promise.all(
    seeded.slice(0, 300).map((record, i) => items.updateOne({ _id: record._id }, { $set: { score: 5_000 + i } })),
  )
  await refresh
  await store.indexWork()
  t.equal(carries(), 'kept')

  const reader = openEmbeddedStore(dataDir)
  t.teardown(() => reader.close())
  const page = await reader.collection<Item>('items').find({ category: 'c4' }, { sort: { score: -1 }, limit: 10 })
  const all = await items.find({ $and: [{ category: 'c4' }] })
  t.same(
    page.map((record) => record.score),
    all
      .map((record) => record.score)
      .sort((a, b) => b - a)
      .slice(0, 10),
  )
})

t.test(
  'a range read while this process writes into it is kept as of those writes: later pages stay right',
  async (t) => {
    const store = openEmbeddedStore(t.testdir())
    t.teardown(() => store.close())
    const items = store.collection<Item>('items')
    let records = await seed(store, 'items', 20_000)
    await items.ensureIndex({ name: 'n', fields: { n: 1 } })
    // All 20,000 candidates: the walk pauses between slices, and the writes land between them.
    const filter = { n: { $gte: 0 } }
    const expected = () =>
      records
        .filter((record) => record.n >= 0)
        .sort((a, b) => b.score - a.score || (a._id < b._id ? 1 : -1))
        .slice(0, 20)
        .map((record) => record._id)
    const page = async () => (await items.find(filter, { sort: { score: -1 }, limit: 20 })).map((found) => found._id)
    const replace = (next: Item) => (records = records.map((record) => (record._id === next._id ? next : record)))

    for (let round = 0; round < 4; round++) {
      const [raised, movedOut, dropped] = records.slice(round * 10)
      // The writes go first: the page's walk starts from the stamp before them and meets them on its way.
      await Promise.all([
        items.updateOne({ _id: (raised as Item)._id }, { $set: { score: 5_000 + round } }),
        items.updateOne({ _id: (movedOut as Item)._id }, { $set: { n: -1, score: 9_000 } }),
        items.deleteOne({ _id: (dropped as Item)._id }),
        items.insertOne({ ...item(30_000 + round), score: 4_000 + round }).then((created) => records.push(created)),
        page(),
      ])
      replace({ ...(raised as Item), score: 5_000 + round })
      replace({ ...(movedOut as Item), n: -1, score: 9_000 })
      records = records.filter((record) => record._id !== (dropped as Item)._id)
      t.same(await page(), expected(), `round ${round}: the page after the writes`)
    }
    t.equal((await page())[0], records.find((record) => record.score === 5_003)?._id, 'the last raised score leads')
  },
)
