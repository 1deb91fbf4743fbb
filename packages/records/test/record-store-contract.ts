import type { Test } from 'tap'
import {
  checkFilter,
  ConflictError,
  DuplicateKeyError,
  InvalidQueryError,
  newObjectId,
  ParallelArraysError,
  sequencedId,
  type RecordStore,
  type Sort,
  type StoredRecord,
} from '../src/index.js'

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
    t.same(await c.findOne({ _id: id, n: 1 }), { _id: id, n: 1 })
    t.equal(await c.findOne({ _id: id, $or: [{ n: 2 }, { m: 1 }] }), null, 'every other term must hold too')
    t.same(await c.updateOne({ _id: id }, { $set: { 'nested.deep.value': 3, group: 'g' } }), {
      _id: id,
      n: 1,
      nested: { deep: { value: 3 } },
      group: 'g',
    })
    t.same(await c.updateOne({ _id: id }, { $unset: { group: true } }), {
      _id: id,
      n: 1,
      nested: { deep: { value: 3 } },
    })
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
      nested: { deep: { value: i * 10 } },
    }))
    const ns = async (filter: Record<string, unknown>) =>
      (await c.find(filter, { sort: { n: 1 } })).map((item) => item.n)
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
    t.same(await ns({ group: { $not: { $regex: '^od' } } }), [0, 2, 4, 5])
    t.same(await ns({ group: { $regex: 'D$', $options: 'mi' } }), [1, 3])
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

  // A backtracking engine takes about 2^n steps for this pattern on n `a`s then a `b`: it would never finish.
  t.test('a catastrophic $regex is matched in linear time', async (t) => {
    const long = `${'a'.repeat(5000)}b`
    const { collection: c } = await seed(3, (i) => ({ n: i, text: i === 1 ? long : 'a'.repeat(i + 1) }))
    const filter = checkFilter({ text: { $regex: '^(a+)+$' } })
    t.same(
      (await c.find(filter, { sort: { n: 1 } })).map((item) => item.n),
      [0, 2],
    )
    t.equal(await c.count(filter), 2)
  })

  t.test('sort with ties, projection, skip', async (t) => {
    const { collection: c, items } = await seed(6, (i) => ({ n: i % 2, group: `g${i}` }))
    const ids = items.map((item) => item._id)
    t.same(
      (await c.find({})).map((item) => item._id),
      ids,
      'default order is _id ascending',
    )
    t.same(
      (await c.find({}, { sort: { n: 1 } })).map((item) => item._id),
      [ids[0], ids[2], ids[4], ids[1], ids[3], ids[5]],
    )
    t.same(
      (await c.find({}, { sort: { n: -1, _id: 1 } })).map((item) => item._id),
      [ids[1], ids[3], ids[5], ids[0], ids[2], ids[4]],
    )
    t.same(
      (await c.find({}, { sort: { n: 1 }, skip: 2, limit: 2 })).map((item) => item._id),
      [ids[4], ids[1]],
    )
    t.same(await c.find({ _id: ids[0] }, { projection: { group: 1 } }), [{ _id: ids[0], group: 'g0' }])
    t.same(await c.find({ _id: ids[0] }, { projection: { group: 0 } }), [{ _id: ids[0], n: 0 }])
    t.same(await c.findOne({ _id: ids[0] }, { projection: { _id: 0, n: 1 } }), { n: 0 })
  })

  t.test('findText answers what find answers, each record as JSON text', async (t) => {
    const { collection: c, items } = await seed(30, (i) => ({
      n: i % 4,
      group: `g${i % 3}`,
      tags: [`t${i % 2}`],
      nested: { deep: { value: i } },
    }))
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: 1 } })
    const asText = (records: Item[]) => records.map((record) => ({ _id: record._id, json: JSON.stringify(record) }))
    const cases: Array<[Record<string, unknown>, { sort?: Sort; skip?: number; limit?: number; after?: string }]> = [
      [{}, {}],
      [{ group: 'g1' }, { sort: { n: 1 }, limit: 4 }],
      [{ group: 'g1' }, { sort: { n: 1 }, limit: 4, after: items[4]?._id }],
      [{ n: { $gte: 2 } }, { sort: { group: -1 }, skip: 2, limit: 5 }],
      [{ _id: items[3]?._id }, {}],
    ]
    for (const [filter, options] of cases) {
      const texts = await c.findText(filter, options)
      t.same(texts, asText(await c.find(filter, options)), `${JSON.stringify(filter)} ${JSON.stringify(options)}`)
    }
    const added: Item = { _id: newObjectId(), n: 9, group: 'g1' }
    await store.transaction(async (tx) => {
      const inside = tx.collection<Item>(`c${counter}`)
      await inside.insertOne(added)
      t.same(await inside.findText({ n: 9 }), asText([added]), 'a transaction answers its own writes')
    })
    // As Mongo stores a replacement: `_id` first, then its fields in their order (answers read fields off the text's end).
    const replaced = items[0]?._id ?? ''
    await c.updateOne({ _id: replaced }, { group: 'r', n: 1, last: 'x' })
    t.same(await c.findText({ _id: replaced }), [
      { _id: replaced, json: JSON.stringify({ _id: replaced, group: 'r', n: 1, last: 'x' }) },
    ])
  })

  t.test('keyset pagination under three sorts loses and repeats nothing', async (t) => {
    const { collection: c, items } = await seed(47, (i) => ({
      n: i % 3,
      group: i % 5 === 0 ? null : `g${(i * 7) % 11}`,
      nested: { deep: { value: 47 - i } },
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

  t.test(
    '`after` as a position (`_id` and sort values) pages as its record does, also once it is deleted',
    async (t) => {
      const { collection: c } = await seed(40, (i) => ({
        n: i % 4,
        group: `g${i % 2}`,
        nested: { deep: { value: i % 5 } },
      }))
      await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: 1 } })
      const cases: Array<[Record<string, unknown>, Sort]> = [
        [{}, {}],
        [{}, { _id: -1 }],
        [{ group: 'g1' }, { n: 1 }],
        [{ group: 'g0' }, { n: -1 }],
        [{}, { 'nested.deep.value': 1, n: -1 }],
      ]
      for (const [filter, sort] of cases) {
        const all = await c.find(filter, { sort })
        const last = all[9] as Item
        const position: StoredRecord = { _id: last._id }
        for (const path of Object.keys(sort)) {
          const value = path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], last)
          const [head, ...rest] = path.split('.')
          if (rest.length === 0) position[path] = value
          else position[head as string] = { deep: { value } }
        }
        const label = `${JSON.stringify(filter)} ${JSON.stringify(sort)}`
        const byId = await c.find(filter, { sort, limit: 5, after: last._id })
        t.same(await c.find(filter, { sort, limit: 5, after: position }), byId, label)
        await store.transaction(async (tx) => {
          const inside = tx.collection<Item>(`c${counter}`)
          t.same(await inside.find(filter, { sort, limit: 5, after: position }), byId, `${label} in a transaction`)
        })
        await c.deleteOne({ _id: last._id })
        t.same(await c.find(filter, { sort, limit: 5, after: position }), byId, `${label} once deleted`)
        await t.rejects(c.find(filter, { sort, after: last._id }), InvalidQueryError, 'its `_id` alone no longer pages')
        await c.insertOne(last)
      }
    },
  )

  t.test('an index on the filter and a sort on another field pages as a full sort does', async (t) => {
    // Ties on `n`, nulls and missing values, negative and fractional numbers, strings among numbers.
    const value = (i: number): Partial<Item> & { n: number } => {
      const shape = i % 9
      const n = shape === 0 ? 0 : shape === 1 ? -1.5 : (i * 37) % 11
      const item: Partial<Item> & { n: number; score?: unknown } = { n, group: i % 3 === 0 ? 'a' : 'b' }
      if (shape === 2) item.score = null
      else if (shape === 3) item.score = `s${i % 4}`
      else if (shape !== 4) item.score = (i * 13) % 7
      return item
    }
    const { collection: c } = await seed(90, value)
    await c.ensureIndex({ name: 'group', fields: { group: 1 } })
    const sorts: Sort[] = [{ score: 1 }, { score: -1 }, { score: 1, n: -1 }, { n: -1, _id: 1 }]
    for (const filter of [{ group: 'a' }, { group: 'b', n: { $gte: 0 } }]) {
      for (const sort of sorts) {
        const label = `${JSON.stringify(filter)} ${JSON.stringify(sort)}`
        const all = (await c.find(filter, { sort })).map((item) => item._id)
        t.ok(all.length > 20, `${label}: ${all.length} matches`)
        t.same(
          (await c.find(filter, { sort, limit: 7 })).map((item) => item._id),
          all.slice(0, 7),
          `${label} limit`,
        )
        t.same(
          (await c.find(filter, { sort, skip: 5, limit: 4 })).map((item) => item._id),
          all.slice(5, 9),
          `${label} skip`,
        )
        t.same(
          (await c.findText(filter, { sort, limit: 3 })).map((item) => item._id),
          all.slice(0, 3),
          `${label} findText`,
        )
        const seen: string[] = []
        let after: string | undefined
        for (;;) {
          const page = await c.find(filter, { sort, limit: 6, after })
          if (page.length === 0) break
          seen.push(...page.map((item) => item._id))
          after = page.at(-1)?._id
        }
        t.same(seen, all, `${label} keyset pages`)
        const tenth = (await c.findOne({ _id: all[9] as string })) as Item
        const position: StoredRecord = { _id: tenth._id }
        for (const path of Object.keys(sort)) if (path in tenth) position[path] = tenth[path]
        t.same(
          (await c.find(filter, { sort, limit: 5, after: position })).map((item) => item._id),
          all.slice(10, 15),
          `${label} after a position`,
        )
      }
    }
  })

  t.test('filter on one index, sort on another field: exact through every kind of write', async (t) => {
    // The embedded store ranks such a query on fields its index entries carry (`covered-fields.ts`): a second
    // handle on the same data, which keeps nothing of what the first one wrote, reads them after each write.
    const other = await target.open(dataDir)
    t.teardown(() => other.close())
    const name = `c${++counter}`
    const c = store.collection<Item>(name)
    const seen = other.collection<Item>(name)
    const long = (i: number) => `${'long '.repeat(20)}${i % 5}`
    // Numbers, ties, null, missing, short and long strings, booleans, arrays, objects; a nested sort path; one
    // record whose many fields push `score` past what an entry carries.
    const shape = (i: number): Item & Record<string, unknown> => {
      const record: Item & Record<string, unknown> = {
        _id: `r${String(i).padStart(3, '0')}`,
        n: i % 7,
        group: `g${i % 3}`,
      }
      const kind = i % 10
      if (kind === 0) record.score = null
      else if (kind === 1) record.score = `s${i % 4}`
      else if (kind === 2) record.score = long(i)
      else if (kind === 3) record.score = i % 2 === 0
      else if (kind === 4) record.score = [i % 5, -i]
      else if (kind === 5) record.score = { at: i % 3 }
      else if (kind !== 6) record.score = ((i * 37) % 23) - 11.25
      record.label = i % 4 === 0 ? long(i) : `l${i % 6}`
      record.nested = { deep: { value: (i * 7) % 5 } }
      record.tags = i % 2 === 0 ? [`t${i % 4}`] : [`t${i % 4}`, `t${(i + 1) % 4}`]
      if (i % 11 === 0) for (let f = 0; f < 30; f++) record[`field_number_${f}`] = f
      if (i % 11 === 0) record.score = i
      return record
    }
    await Promise.all(Array.from({ length: 120 }, (_, i) => c.insertOne(shape(i))))
    await c.ensureIndex({ name: 'group', fields: { group: 1 } })
    await c.ensureIndex({ name: 'tags', fields: { tags: 1 } })
    const sorts: Sort[] = [
      { score: 1 },
      { score: -1 },
      { score: 1, n: -1 },
      { n: -1, score: 1 },
      { label: 1 },
      { 'nested.deep.value': -1, n: 1 },
      { missing: 1, n: 1 },
    ]
    const ids = (records: StoredRecord[]) => records.map((record) => record._id)
    const check = async (when: string) => {
      for (const filter of [{ group: 'g1' }, { group: { $in: ['g0', 'g2'] } }, { tags: 't1' }]) {
        for (const sort of sorts) {
          const label = `${when}: ${JSON.stringify(filter)} ${JSON.stringify(sort)}`
          // Under `$and` no index is sought: every record is matched and sorted in memory, the reference.
          const all = ids(await c.find({ $and: [filter] }, { sort }))
          t.same(ids(await c.find(filter, { sort, limit: 5 })), all.slice(0, 5), `${label} limit`)
          t.same(ids(await seen.find(filter, { sort, skip: 4, limit: 6 })), all.slice(4, 10), `${label} skip`)
          const paged: string[] = []
          let after: string | undefined
          for (;;) {
            const page = ids(await seen.find(filter, { sort, limit: 12, after }))
            if (page.length === 0) break
            paged.push(...page)
            after = page.at(-1)
          }
          t.same(paged, all, `${label} keyset pages`)
        }
      }
    }
    await check('as built')
    for (let i = 0; i < 120; i += 4) await c.updateOne({ _id: shape(i)._id }, { $set: { score: (i * 5) % 13 } })
    await check('sort field updated')
    for (let i = 1; i < 120; i += 5) await c.updateOne({ _id: shape(i)._id }, { $set: { n: 100 - i, label: `m${i}` } })
    await check('other carried fields updated')
    for (let i = 2; i < 120; i += 6) await c.updateOne({ _id: shape(i)._id }, { $set: { group: 'g1', score: -i } })
    await check('indexed field updated')
    for (let i = 3; i < 120; i += 7) {
      await c.updateOne({ _id: shape(i)._id }, i % 2 === 0 ? { $unset: { score: '' } } : { $set: { score: long(i) } })
    }
    await check('sort field unset or made long')
    for (let i = 5; i < 120; i += 8) await c.updateOne({ _id: shape(i)._id }, { $set: { tags: ['t1'] } })
    await check('arrays of the multikey index shortened')
    for (let i = 0; i < 120; i += 9) await c.deleteOne({ _id: shape(i)._id })
    await check('deleted')
  })

  t.test('unique and partial unique indexes', async (t) => {
    const c = fresh()
    await c.ensureIndex({
      name: 'group_unique',
      fields: { group: 1 },
      unique: true,
      partial: { group: { $exists: true } },
    })
    await c.ensureIndex({
      name: 'group_unique',
      fields: { group: 1 },
      unique: true,
      partial: { group: { $exists: true } },
    })
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
    t.same(
      (await c.find({ group: 'a' })).map((item) => item.n),
      [1],
    )

    const d = fresh()
    await d.insertOne({ _id: newObjectId(), n: 1 })
    await d.insertOne({ _id: newObjectId(), n: 1 })
    await t.rejects(d.ensureIndex({ name: 'n_unique', fields: { n: 1 }, unique: true }), DuplicateKeyError)
    await d.insertOne({ _id: newObjectId(), n: 1 })
    t.same(await d.indexes(), [], 'the refused index left nothing behind')
    t.same(await c.indexes(), [
      {
        name: 'group_unique',
        fields: { group: 1 },
        unique: true,
        partial: { group: { $exists: true } },
        state: 'ready',
      },
    ])
  })

  t.test('a compound index answers filter + sort touching only matching entries', async (t) => {
    const { collection: c, items } = await seed(300, (i) => ({
      n: (i * 37) % 100,
      group: i % 30 === 0 ? 'rare' : 'common',
    }))
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: -1 } })
    const before = target.reads?.(store)
    const page = await c.find({ group: 'rare' }, { sort: { n: -1 }, limit: 4 })
    const expected = items.filter((item) => item.group === 'rare').sort((a, b) => b.n - a.n || (a._id < b._id ? 1 : -1))
    t.same(
      page.map((item) => item._id),
      expected.slice(0, 4).map((item) => item._id),
    )
    const next = await c.find({ group: 'rare' }, { sort: { n: -1 }, limit: 100, after: page.at(-1)?._id })
    t.same(
      next.map((item) => item._id),
      expected.slice(4).map((item) => item._id),
    )
    if (before !== undefined && target.reads) {
      const reads = target.reads(store) - before
      t.ok(
        reads <= 2 * (expected.length + 2) + 2,
        `read ${reads} entries for ${expected.length} matches out of ${items.length}`,
      )
    }
    const idOrder = target.reads?.(store)
    await c.find({}, { limit: 5 })
    if (idOrder !== undefined && target.reads) {
      t.ok(target.reads(store) - idOrder <= 6, 'a default-order page reads about limit records')
    }
  })

  /** Reads done by `op`, when the adapter counts them. */
  const readsOf = async <R>(op: () => Promise<R>): Promise<[R, number | undefined]> => {
    const before = target.reads?.(store)
    const result = await op()
    return [result, before === undefined || !target.reads ? undefined : target.reads(store) - before]
  }

  t.test('an equality is answered by a partial unique index on $exists', async (t) => {
    const { collection: c, items } = await seed(400, (i) => ({ n: i, ...(i % 2 === 0 ? { group: `e${i}` } : {}) }))
    await c.ensureIndex({ name: 'ext', fields: { group: 1 }, unique: true, partial: { group: { $exists: true } } })
    const [found, reads] = await readsOf(() => c.findOne({ group: 'e10' }))
    t.equal(found?.n, 10)
    if (reads !== undefined) t.ok(reads <= 4, `findOne read ${reads} entries`)
    t.equal(await c.findOne({ group: 'e11' }), null)
    t.equal(
      (await c.findOne({ group: null }))?._id,
      items.find((item) => item.group === undefined)?._id,
      'a null equality also matches missing fields',
    )
    t.same((await c.find({ group: 'e10' }, { skip: 1 })).length, 0, 'skip passes the one match')
    t.same(await c.find({ group: 'e10' }, { projection: { n: 1, _id: 0 } }), [{ n: 10 }], 'projected')
    await c.deleteOne({ group: 'e10' })
    t.equal(await c.findOne({ group: 'e10' }), null, 'gone once deleted')
    const [counted, countReads] = await readsOf(() => c.count({ group: 'e20' }))
    t.equal(counted, 1)
    if (countReads !== undefined) t.ok(countReads <= 2, `count read ${countReads} entries`)
  })

  t.test('counts of everything and of an indexed equality read no records', async (t) => {
    const { collection: c, items } = await seed(300, (i) => ({ n: i % 7, group: `g${i % 3}` }))
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: 1 } })
    const [all, allReads] = await readsOf(() => c.count({}))
    t.equal(all, 300)
    if (allReads !== undefined) t.ok(allReads <= 2, `count({}) read ${allReads}`)
    const expected = items.filter((item) => item.group === 'g1').length
    const [byGroup, groupReads] = await readsOf(() => c.count({ group: 'g1' }))
    t.equal(byGroup, expected)
    if (groupReads !== undefined) {
      t.ok(groupReads <= expected + 1, `count({group}) read ${groupReads} for ${expected} matches`)
    }
    const both = items.filter((item) => item.group === 'g1' && item.n === 3).length
    t.equal(await c.count({ group: 'g1', n: 3 }), both)
    t.equal(
      await c.count({ group: 'g1', n: { $gte: 3 } }),
      items.filter((item) => item.group === 'g1' && item.n >= 3).length,
    )
  })

  t.test('a multikey index answers equality on array elements, deduplicated', async (t) => {
    const envs = (i: number) =>
      i % 10 === 9 ? undefined : i % 10 === 8 ? `x${i % 5}` : [`x${i % 5}`, `x${(i * 3) % 5}`, 'all']
    const { collection: c, items } = await seed(300, (i) => ({
      n: i,
      ...(envs(i) === undefined ? {} : { tags: envs(i) as string[] }),
    }))
    await c.ensureIndex({ name: 'tags', fields: { tags: 1 } })
    const holding = (tag: string) =>
      items.filter((item) => item.tags === (tag as unknown) || (Array.isArray(item.tags) && item.tags.includes(tag)))
    const expected = holding('x2')
    const [counted, countReads] = await readsOf(() => c.count({ tags: 'x2' }))
    t.equal(counted, expected.length, 'each record counted once')
    if (countReads !== undefined) {
      t.ok(countReads <= expected.length + 1, `count read ${countReads} entries for ${expected.length} matches`)
    }
    t.equal(await c.count({ tags: 'all' }), holding('all').length)

    const seen: string[] = []
    let after: string | undefined
    let pageReads = 0
    for (;;) {
      const [page, reads] = await readsOf(() => c.find({ tags: { $eq: 'x2' } }, { limit: 7, after }))
      pageReads = Math.max(pageReads, reads ?? 0)
      if (page.length === 0) break
      seen.push(...page.map((item) => item._id))
      after = page.at(-1)?._id
    }
    t.same(
      seen,
      expected.map((item) => item._id),
      'pages in _id order, nothing lost or repeated',
    )
    if (target.reads) t.ok(pageReads <= 2 * 8 + 2, `a page of 7 read at most ${pageReads}`)
    t.same(
      (await c.find({ tags: 'x2' }, { sort: { _id: -1 }, limit: 3 })).map((item) => item._id),
      expected
        .slice(-3)
        .reverse()
        .map((item) => item._id),
    )
    t.same(
      (await c.find({ tags: 'x2' }, { sort: { n: -1 } })).map((item) => item.n),
      expected.map((item) => item.n).reverse(),
    )
    t.same(
      (await c.find({ tags: null })).map((item) => item.n),
      items.filter((item) => item.tags === undefined).map((item) => item.n),
      'null matches missing fields',
    )
    t.same(
      (await c.find({ tags: { $in: ['x1', 'x2'] } })).map((item) => item.n),
      items.filter((item) => holding('x1').includes(item) || holding('x2').includes(item)).map((item) => item.n),
    )

    const first = expected[0] as Item
    await c.updateOne({ _id: first._id }, { $set: { tags: ['x2', 'x2', 'y'] } })
    await c.updateOne({ _id: (expected[1] as Item)._id }, { $set: { tags: ['y'] } })
    t.equal(await c.count({ tags: 'x2' }), expected.length - 1, 'updates move entries')
    t.same(
      (await c.find({ tags: 'y' })).map((item) => item._id),
      [first._id, (expected[1] as Item)._id],
    )
    await c.deleteOne({ _id: first._id })
    t.equal(await c.count({ tags: 'y' }), 1)
  })

  t.test('a multikey index on a field inside an array of objects', async (t) => {
    const c = fresh()
    await c.ensureIndex({ name: 'emails', fields: { 'emails.address': 1 } })
    const a = await c.insertOne({ _id: newObjectId(), n: 1, emails: [{ address: 'a@x' }, { address: 'b@x' }] } as Item)
    await c.insertOne({ _id: newObjectId(), n: 2, emails: [] } as Item)
    await c.insertOne({ _id: newObjectId(), n: 3 })
    const [found, reads] = await readsOf(() => c.findOne({ 'emails.address': 'b@x' }))
    t.equal(found?._id, a._id)
    if (reads !== undefined) t.ok(reads <= 4, `findOne read ${reads}`)
    t.equal(await c.count({ 'emails.address': 'a@x' }), 1)
    t.equal(await c.findOne({ 'emails.address': 'c@x' }), null)
  })

  t.test('parallel arrays are refused as MongoDB refuses them, on write and when an index is built', async (t) => {
    const c = fresh()
    await c.ensureIndex({ name: 'tags_sizes', fields: { tags: 1, sizes: 1 } })
    await c.ensureIndex({ name: 'items', fields: { 'items.sku': 1, 'items.qty': 1 } })
    await c.insertOne({ _id: newObjectId(), n: 1, tags: ['a', 'b'], sizes: 3 })
    await c.insertOne({
      _id: newObjectId(),
      n: 2,
      items: [
        { sku: 'x', qty: 1 },
        { sku: 'y', qty: 2 },
      ],
    })
    const parallel = { _id: newObjectId(), n: 3, tags: ['a', 'b'], sizes: [1, 2] }
    await t.rejects(c.insertOne(parallel), ParallelArraysError)
    const kept = await c.insertOne({ _id: newObjectId(), n: 4, tags: ['c'], sizes: 5 })
    await t.rejects(c.updateOne({ _id: kept._id }, { $set: { sizes: [1, 2] } }), ParallelArraysError)
    t.same(await c.findOne({ _id: kept._id }), kept, 'the refused update changed nothing')
    t.equal(await c.count({}), 3)

    const other = fresh()
    await other.insertOne({ _id: newObjectId(), n: 1, a: [1, 2], b: [3, 4] })
    await t.rejects(other.ensureIndex({ name: 'a_b', fields: { a: 1, b: 1 } }), ParallelArraysError)
    await other.insertOne({ _id: newObjectId(), n: 2, a: [5], b: 6 })
    t.equal(await other.count({ a: 5 }), 1, 'the failed build left no index behind')
  })

  t.test('a unique multikey index holds each element once across records', async (t) => {
    const c = fresh()
    await c.ensureIndex({ name: 'tags_unique', fields: { tags: 1 }, unique: true })
    const a = await c.insertOne({ _id: newObjectId(), n: 1, tags: ['p', 'q', 'q'] })
    await t.rejects(c.insertOne({ _id: newObjectId(), n: 2, tags: ['r', 'q'] }), DuplicateKeyError)
    await c.insertOne({ _id: newObjectId(), n: 3, tags: ['r'] })
    await c.updateOne({ _id: a._id }, { $set: { tags: ['p'] } })
    await c.insertOne({ _id: newObjectId(), n: 4, tags: ['q'] })
    t.equal(await c.count({}), 3)
  })

  t.test('a compound unique index: an equality on its first field finds every record holding it', async (t) => {
    const { collection: c } = await seed(12, (i) => ({ n: i, group: `g${i % 3}` }))
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: 1 }, unique: true })
    t.same(
      (await c.find({ group: 'g1' }, { sort: { group: 1, n: 1 } })).map((item) => item.n),
      [1, 4, 7, 10],
    )
    t.same(
      (await c.find({ group: 'g1', n: 7 })).map((item) => item.n),
      [7],
    )
    t.equal(await c.count({ group: 'g2' }), 4)
    await t.rejects(c.insertOne({ _id: newObjectId(), n: 4, group: 'g1' }), DuplicateKeyError)
  })

  t.test('a unique index pages in its own order both ways, past an `after` it does not hold', async (t) => {
    const c = fresh()
    await c.ensureIndex({ name: 'name_active', fields: { group: 1 }, unique: true, partial: { n: 1 } })
    // Active records (n: 1) hold unique names; inactive ones (n: 0) share names with them, on either side by _id.
    const before = await c.insertOne({ _id: newObjectId(), n: 0, group: 'm' })
    const active: Item[] = []
    for (const group of ['k', 'm', 'q', 'a', 'z']) active.push(await c.insertOne({ _id: newObjectId(), n: 1, group }))
    const later = await c.insertOne({ _id: newObjectId(), n: 0, group: 'm' })
    await t.rejects(c.insertOne({ _id: newObjectId(), n: 1, group: 'q' }), DuplicateKeyError)
    for (const direction of [1, -1] as const) {
      const expected = (await c.find({ n: 1 }, { sort: { group: direction } })).map((item) => item.group)
      t.same(
        expected,
        ['a', 'k', 'm', 'q', 'z'].sort((x, y) => (x < y ? -direction : direction)),
      )
      const seen: unknown[] = []
      let after: string | undefined
      for (;;) {
        const page = await c.find({ n: 1 }, { sort: { group: direction }, limit: 2, after })
        if (page.length === 0) break
        seen.push(...page.map((item) => item.group))
        after = page.at(-1)?._id
      }
      t.same(seen, expected, `pages under {group: ${direction}}`)
      // The active 'm' sorts after an inactive 'm' with a smaller _id, and before one with a larger _id.
      const past = async (from: Item) =>
        (await c.find({ n: 1 }, { sort: { group: direction }, after: from._id })).map((item) => item.group)
      const beyond = expected.slice(expected.indexOf('m') + 1)
      t.same(await past(before), direction === 1 ? ['m', ...beyond] : beyond)
      t.same(await past(later), direction === 1 ? beyond : ['m', ...beyond])
    }
    // Under the `_id` order its values name one key, the walk's bound either way (down, past `after` or not).
    const ids = (items: Item[]) => items.map((item) => item._id)
    const m = active[1] as Item
    for (const direction of [1, -1] as const) {
      t.same(ids(await c.find({ group: 'm', n: 1 }, { sort: { _id: direction } })), [m._id], `{_id: ${direction}}`)
    }
    t.same(ids(await c.find({ group: 'm', n: 1 }, { sort: { _id: -1 }, after: later._id })), [m._id])
    t.same(ids(await c.find({ group: 'm', n: 1 }, { sort: { _id: -1 }, after: before._id })), [])
  })

  t.test('filter + sort through a compound index reads about limit entries of a large collection', async (t) => {
    const c = fresh()
    const batch: Promise<Item>[] = []
    for (let i = 0; i < 3000; i++) {
      batch.push(c.insertOne({ _id: newObjectId(), n: (i * 7919) % 1000, group: `c${i % 10}` }))
    }
    await Promise.all(batch)
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: -1 } })
    const [page, reads] = await readsOf(() => c.find({ group: 'c3' }, { sort: { n: -1 }, limit: 21 }))
    t.equal(page.length, 21)
    t.same(
      page.map((item) => item.n),
      page.map((item) => item.n).sort((x, y) => y - x),
    )
    if (reads !== undefined) t.ok(reads <= 2 * 21 + 2, `read ${reads} for a page of 21 out of 3000`)
  })

  /** The `_id`s `c` and an unindexed twin holding the same records answer (the twin scans and matches each). */
  const sameAsScan = async (
    t: Test,
    c: ReturnType<typeof fresh>,
    twin: ReturnType<typeof fresh>,
    filter: Record<string, unknown>,
    options: { sort?: Sort; skip?: number; limit?: number; after?: string } = {},
  ) => {
    const ids = (records: Item[]) => records.map((record) => record._id)
    const expected = ids(await twin.find(filter, options))
    t.same(ids(await c.find(filter, options)), expected, `${JSON.stringify(filter)} ${JSON.stringify(options)}`)
    return expected
  }

  const twins = async (records: Item[]) => {
    const c = fresh()
    const twin = fresh()
    await Promise.all(records.flatMap((record) => [c.insertOne({ ...record }), twin.insertOne({ ...record })]))
    return { c, twin }
  }

  t.test(
    'a range on an indexed field matches as a scan does: operators, edges, types, missing and arrays',
    async (t) => {
      // Numbers (negative, fractional, ties), numeric and date strings, null, missing, booleans, objects, arrays.
      const shapes: unknown[] = [
        -3,
        -0.5,
        0,
        1,
        5,
        5,
        9.5,
        10,
        10,
        12,
        19.99,
        20,
        20,
        25,
        100,
        '5',
        '10',
        'abc',
        'b',
        '',
        '2026-10-31T23:59:59Z',
        '2026-11-01',
        '2026-11-01T00:00:00Z',
        '2026-12-24T10:00:00Z',
        null,
        undefined,
        true,
        { x: 1 },
        [5, 25],
        [12, 15],
        [],
        ['a', '2026-11-02'],
        [30, 'z'],
      ]
      const records = shapes.map((v, i) => ({ _id: newObjectId(), n: i, ...(v === undefined ? {} : { v }) }) as Item)
      const filters: Array<Record<string, unknown>> = [
        { v: { $gt: 10 } },
        { v: { $gte: 10 } },
        { v: { $lt: 10 } },
        { v: { $lte: 10 } },
        { v: { $gte: 10, $lt: 20 } },
        { v: { $gt: 10, $lte: 20 } },
        { v: { $gt: -1, $lt: 0 } },
        { v: { $gt: 20, $lt: 10 } },
        { v: { $gt: 5, $lt: 'z' } },
        { v: { $gte: '2026-11-01' } },
        { v: { $gt: '2026-11-01', $lt: '2026-12' } },
        { v: { $lt: 'b' } },
        { v: { $gte: '' } },
        { v: { $lte: '\u{1F600}' } },
        { v: { $gt: 5, $ne: 10 } },
        { v: { $gte: 5, $lt: 20 }, n: { $gt: 3 } },
      ]
      for (const direction of [1, -1] as const) {
        const { c, twin } = await twins(records)
        await c.ensureIndex({ name: 'v', fields: { v: direction } })
        for (const filter of filters) {
          await sameAsScan(t, c, twin, filter)
          await sameAsScan(t, c, twin, filter, { limit: 3 })
          await sameAsScan(t, c, twin, filter, { sort: { v: direction }, limit: 4 })
          await sameAsScan(t, c, twin, filter, { sort: { n: -1 }, skip: 1, limit: 3 })
          t.equal(await c.count(filter), await twin.count(filter), `count ${JSON.stringify(filter)}`)
        }
        // As MongoDB compares: within the bound's type, each array element on its own, never a missing field.
        const values = async (filter: Record<string, unknown>) =>
          (await c.find(filter, { sort: { n: 1 } })).map((item) => (item as Item & { v?: unknown }).v)
        t.same(await values({ v: { $gte: 10, $lt: 20 } }), [10, 10, 12, 19.99, [5, 25], [12, 15]])
        t.same(await values({ v: { $lt: 5 } }), [-3, -0.5, 0, 1])
        t.same(await values({ v: { $gt: '2026-11-01', $lt: '2026-12' } }), [
          '2026-11-01T00:00:00Z',
          ['a', '2026-11-02'],
        ])
      }
    },
  )

  t.test('a range of 10 in 10,000 records reads about 10 records, in any order and counted', async (t) => {
    const c = fresh()
    for (let i = 0; i < 10_000; i += 500) {
      const batch: Promise<Item>[] = []
      for (let j = i; j < i + 500; j++) {
        batch.push(c.insertOne({ _id: newObjectId(), n: (j * 7919) % 10_000, group: `g${j % 4}` }))
      }
      await Promise.all(batch)
    }
    await c.ensureIndex({ name: 'n', fields: { n: 1 } })
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: -1 } })
    const range = { n: { $gte: 5000, $lt: 5010 } }
    const byGroup = (await c.find(range)).sort(
      (a, b) => (b.group as string).localeCompare(a.group as string) || (a._id < b._id ? 1 : -1),
    )
    const cases: Array<[string, () => Promise<unknown>, unknown, number]> = [
      [
        'find',
        async () => (await c.find(range)).map((item) => item.n).sort((a, b) => a - b),
        [5000, 5001, 5002, 5003, 5004, 5005, 5006, 5007, 5008, 5009],
        22,
      ],
      ['find, limit', async () => (await c.find(range, { limit: 3 })).length, 3, 16],
      [
        'sort served',
        async () => (await c.find(range, { sort: { n: -1 }, limit: 3 })).map((item) => item.n),
        [5009, 5008, 5007],
        8,
      ],
      [
        'sort not served',
        async () => (await c.find(range, { sort: { group: -1 }, limit: 2 })).map((item) => item._id),
        byGroup.slice(0, 2).map((item) => item._id),
        24,
      ],
      ['count', () => c.count(range), 10, 12],
      [
        'prefix + range',
        async () => (await c.find({ group: 'g1', n: { $gt: 9000 } }, { sort: { n: -1 }, limit: 3 })).length,
        3,
        8,
      ],
    ]
    for (const [label, op, expected, most] of cases) {
      const [result, reads] = await readsOf(op)
      t.same(result, expected, label)
      if (reads !== undefined) t.ok(reads <= most, `${label}: read ${reads} for 10 matches of 10,000`)
    }
  })

  t.test('prefix + range on a compound index: sorts served or not, skip, limit and `after` pages', async (t) => {
    const records = Array.from(
      { length: 120 },
      (_, i) =>
        ({
          _id: newObjectId(),
          n: (i * 37) % 50,
          group: i % 7 === 0 ? null : `g${i % 3}`,
          nested: { deep: { value: i % 4 } },
          ...(i % 11 === 0 ? { tags: [`t${i % 2}`] } : {}),
        }) as Item,
    )
    const { c, twin } = await twins(records)
    await c.ensureIndex({ name: 'group_n', fields: { group: 1, n: -1 } })
    const filters: Array<Record<string, unknown>> = [
      { group: 'g1', n: { $gte: 10, $lt: 40 } },
      { group: 'g2', n: { $gt: 45 } },
      { group: 'g0', n: { $lte: 5 }, 'nested.deep.value': 2 },
      { group: null, n: { $gt: 20 } },
    ]
    const sorts: Sort[] = [{}, { n: -1 }, { n: 1 }, { group: 1, n: -1 }, { 'nested.deep.value': 1 }, { _id: -1 }]
    for (const filter of filters) {
      t.equal(await c.count(filter), await twin.count(filter), `count ${JSON.stringify(filter)}`)
      for (const sort of sorts) {
        const all = await sameAsScan(t, c, twin, filter, { sort })
        await sameAsScan(t, c, twin, filter, { sort, skip: 2, limit: 3 })
        const seen: string[] = []
        let after: string | undefined
        for (;;) {
          const page = await c.find(filter, { sort, limit: 4, after })
          if (page.length === 0) break
          seen.push(...page.map((item) => item._id))
          after = page.at(-1)?._id
        }
        t.same(seen, all, `${JSON.stringify(filter)} ${JSON.stringify(sort)} pages`)
      }
    }
    // `after` a record outside the range pages from where it sorts: past its end, nothing; before it, the range.
    const below = records.find((item) => item.group === 'g1' && item.n < 10) as Item
    const above = records.find((item) => item.group === 'g1' && item.n >= 40) as Item
    const filter = filters[0] as Record<string, unknown>
    for (const sort of [{ n: 1 }, { n: -1 }] as Sort[]) {
      for (const from of [below, above]) {
        t.same(
          (await c.find(filter, { sort, after: from._id })).map((item) => item._id),
          (await twin.find(filter, { sort, after: from._id })).map((item) => item._id),
          `after n ${from.n} under ${JSON.stringify(sort)}`,
        )
      }
    }
  })

  t.test('a unique index walks a range down to bounds its keys equal, past `after` or not', async (t) => {
    const { c, twin } = await twins(Array.from({ length: 12 }, (_, i) => ({ _id: newObjectId(), n: i }) as Item))
    await c.ensureIndex({ name: 'n', fields: { n: 1 }, unique: true })
    for (const filter of [{ n: { $gt: 2, $lt: 8 } }, { n: { $gte: 2, $lte: 8 } }, { n: { $gte: 11 } }]) {
      for (const sort of [{ n: -1 }, { n: 1 }] as Sort[]) {
        const all = await sameAsScan(t, c, twin, filter, { sort })
        for (const after of all) await sameAsScan(t, c, twin, filter, { sort, limit: 2, after })
      }
    }
  })

  t.test(
    'a range on `_id` matches as a scan does: operators, edges, other types, other terms, sorts, pages',
    async (t) => {
      // Ids of several lengths, prefixes of others, letters past ASCII (below U+D800 and past it).
      const idList = ['a', 'a0', 'ab', 'abc', 'b', 'ba', 'c', 'cz', 'd', '\u00e9', '\u0436', '\u{1F600}x', '0', 'Z']
      const c = fresh()
      await Promise.all(idList.map((_id, i) => c.insertOne({ _id, n: i % 5, ...(i % 3 === 0 ? { group: 'g' } : {}) })))
      await c.ensureIndex({ name: 'group', fields: { group: 1 } })
      await c.ensureIndex({ name: 'n', fields: { n: 1 } })
      const filters: Array<Record<string, unknown>> = [
        { _id: { $gt: 'ab' } },
        { _id: { $gte: 'ab' } },
        { _id: { $lt: 'b' } },
        { _id: { $lte: 'b' } },
        { _id: { $gt: 'a', $lt: 'c' } },
        { _id: { $gte: 'b', $lte: 'b' } },
        { _id: { $gt: 'c', $lt: 'a' } },
        { _id: { $gte: '' } },
        { _id: { $gt: '\u00e9' } },
        { _id: { $lt: '\u{1F600}' } },
        { _id: { $gt: 5 } },
        { _id: { $gt: 'a', $lt: 5 } },
        { _id: { $gt: 'a', $ne: 'b' } },
        { _id: { $gt: 'a' }, n: { $gte: 2 } },
        { _id: { $lte: 'c' }, group: 'g' },
        { _id: { $gt: 'a0', $lt: '\u0436' }, group: 'g', n: { $lt: 4 } },
      ]
      const ids = (records: Item[]) => records.map((record) => record._id)
      const sorts: Sort[] = [{}, { _id: -1 }, { n: 1 }, { n: -1, _id: 1 }]
      for (const filter of filters) {
        // The planner seeks only top-level terms: under `$and` the same filter is a scan matching each record.
        const scanned = { $and: [filter] }
        const label = JSON.stringify(filter)
        t.equal(await c.count(filter), await c.count(scanned), `count ${label}`)
        for (const sort of sorts) {
          const all = ids(await c.find(scanned, { sort }))
          t.same(ids(await c.find(filter, { sort })), all, `${label} ${JSON.stringify(sort)}`)
          t.same(ids(await c.find(filter, { sort, skip: 1, limit: 3 })), all.slice(1, 4), `${label} skip 1, limit 3`)
          const seen: string[] = []
          let after: string | undefined
          for (;;) {
            const page = ids(await c.find(filter, { sort, limit: 2, after }))
            if (page.length === 0) break
            seen.push(...page)
            after = page.at(-1)
          }
          t.same(seen, all, `${label} ${JSON.stringify(sort)} in pages`)
        }
      }
      // As MongoDB compares: strings by their UTF-8 bytes, a number bound matches no string `_id`.
      t.same(ids(await c.find({ _id: { $gt: 'ab' } })), [
        'abc',
        'b',
        'ba',
        'c',
        'cz',
        'd',
        '\u00e9',
        '\u0436',
        '\u{1F600}x',
      ])
      t.same(ids(await c.find({ _id: { $lte: 'b' } }, { sort: { _id: -1 } })), ['b', 'abc', 'ab', 'a0', 'a', 'Z', '0'])
      t.same(ids(await c.find({ _id: { $gt: 5 } })), [])
      t.same(ids(await c.find({ _id: { $gte: 'ab', $lt: 'c' } }, { after: 'a0' })), ['ab', 'abc', 'b', 'ba'])
      t.same(ids(await c.find({ _id: { $gte: 'ab', $lt: 'c' } }, { sort: { _id: -1 }, after: 'cz' })), [
        'ba',
        'b',
        'abc',
        'ab',
      ])
    },
  )

  t.test(
    'an `_id` range of 10 in 10,000 records reads about 10; paging by `_id: {$gt: last}` about a page',
    async (t) => {
      const c = fresh()
      for (let i = 0; i < 10_000; i += 500) {
        const batch: Promise<Item>[] = []
        for (let j = i; j < i + 500; j++) batch.push(c.insertOne({ _id: newObjectId(), n: j, group: `g${j % 4}` }))
        await Promise.all(batch)
      }
      await c.ensureIndex({ name: 'group', fields: { group: 1 } })
      // Ids are made in creation order: the record at position i holds n = i.
      const ids = (await c.findText({}, { sort: { _id: 1 } })).map((record) => record._id)
      const at = (i: number) => ids[i] as string
      const range = { _id: { $gte: at(5000), $lt: at(5010) } }
      const ns = (items: Item[]) => items.map((item) => item.n)
      const cases: Array<[string, () => Promise<unknown>, unknown, number]> = [
        ['find', async () => ns(await c.find(range)), [5000, 5001, 5002, 5003, 5004, 5005, 5006, 5007, 5008, 5009], 11],
        [
          'reversed, limit',
          async () => ns(await c.find(range, { sort: { _id: -1 }, limit: 3 })),
          [5009, 5008, 5007],
          4,
        ],
        [
          'sorted on another field',
          async () => ns(await c.find(range, { sort: { n: -1 }, limit: 2 })),
          [5009, 5008],
          11,
        ],
        ['count', () => c.count(range), 10, 10],
        [
          'another term re-checked',
          async () => ns(await c.find({ _id: { $gt: at(5000), $lte: at(5010) }, n: { $ne: 5005 } })),
          [5001, 5002, 5003, 5004, 5006, 5007, 5008, 5009, 5010],
          11,
        ],
        [
          'an index on the other term, then the range',
          async () => ns(await c.find({ group: 'g1', _id: { $gt: at(5000) } }, { limit: 3 })),
          [5001, 5005, 5009],
          // An entry and its record each, and the fourth's (it tells the walk the page is full).
          8,
        ],
      ]
      for (const [label, op, expected, most] of cases) {
        const [result, reads] = await readsOf(op)
        t.same(result, expected, label)
        if (reads !== undefined) t.ok(reads <= most, `${label}: read ${reads}`)
      }
      // The marketplace's listing and the users' (members of one environment), 20 a page from past position 8000.
      for (const scope of [{}, { group: 'g2' }]) {
        const seen: string[] = []
        let last = at(8000)
        for (;;) {
          const [page, reads] = await readsOf(() =>
            c.find({ ...scope, _id: { $gt: last } }, { sort: { _id: 1 }, limit: 21 }),
          )
          // A page of 21 reads 22 records (the 22nd tells the walk to stop), through the index as many entries too.
          const most = 'group' in scope ? 2 * 22 : 22
          if (reads !== undefined) t.ok(reads <= most, `${JSON.stringify(scope)} past ${seen.length}: read ${reads}`)
          seen.push(...page.slice(0, 20).map((item) => item._id))
          if (page.length <= 20) break
          last = page[19]?._id as string
        }
        const expected = ids.slice(8001).filter((_, i) => !('group' in scope) || (8001 + i) % 4 === 2)
        t.same(seen, expected, `${JSON.stringify(scope)}: every record past 8000, once`)
      }
    },
  )

  t.test('optimistic concurrency', async (t) => {
    const c = fresh()
    const id = newObjectId()
    await c.insertOne({ _id: id, n: 1, _hash: 'h1' })
    t.same(await c.updateOne({ _id: id }, { $set: { n: 2, _hash: 'h2' } }, { expectedHash: 'h1' }), {
      _id: id,
      n: 2,
      _hash: 'h2',
    })
    await t.rejects(c.updateOne({ _id: id }, { $set: { n: 3 } }, { expectedHash: 'h1' }), ConflictError)
    await t.rejects(c.deleteOne({ _id: id }, { expectedHash: 'h1' }), ConflictError)
    t.equal((await c.findOne({ _id: id }))?.n, 2)
  })

  t.test('concurrent writers', async (t) => {
    const c = fresh()
    const id = newObjectId()
    await c.insertOne({ _id: id, n: 0, _hash: '0' })
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => c.updateOne({ _id: id }, { $set: { n: 1, _hash: '1' } }, { expectedHash: '0' })),
    )
    t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one guarded writer wins')
    await Promise.all(Array.from({ length: 50 }, (_, i) => c.insertOne({ _id: newObjectId(), n: i })))
    t.equal(await c.count({}), 51)
    await c.ensureIndex({
      name: 'group_unique',
      fields: { group: 1 },
      unique: true,
      partial: { group: { $exists: true } },
    })
    const racing = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => c.insertOne({ _id: newObjectId(), n: i, group: `k${i % 5}` })),
    )
    t.equal(racing.filter((r) => r.status === 'fulfilled').length, 5, 'concurrent inserts of one unique key: one wins')
    t.ok(racing.every((r) => r.status === 'fulfilled' || r.reason instanceof DuplicateKeyError))
    t.equal(await c.count({}), 56, 'a refused insert does not undo the others committed with it')
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
    await t.rejects(
      store.transaction(async (tx) => {
        await tx.collection<Item>(name).updateOne({ _id: first }, { $set: { n: 10 } })
        await tx.collection<Item>(name).insertOne({ _id: first, n: 3 })
      }),
      DuplicateKeyError,
    )
    t.equal((await c.findOne({ _id: first }))?.n, 1, 'the failed transaction left nothing behind')
  })

  t.test('appended log entries are numbered per partition in commit order, with their transaction', async (t) => {
    const log = `log${++counter}`
    const append = (partition: string, n: number) =>
      store.transaction(async (tx) => {
        await tx.collection<Item>(`c${counter}`).insertOne({ _id: newObjectId(), n })
        await tx.append(log, partition, { n })
      })
    // Concurrent transactions of one partition: each gets its own number, none twice.
    await Promise.all(Array.from({ length: 20 }, (_, i) => append('a', i)))
    await append('b', 100)
    await t.rejects(
      store.transaction(async (tx) => {
        await tx.append(log, 'a', { n: -1 })
        throw new Error('rolled back')
      }),
      /rolled back/,
    )
    await append('a', 20)
    const entries = await store.collection<Item & { seq: number }>(log).find({}, { sort: { _id: 1 } })
    const a = entries.filter((entry) => entry._id.startsWith('a:'))
    t.same(
      a.map((entry) => entry.seq),
      Array.from({ length: 21 }, (_, i) => i + 1),
      'partition a: 1 to 21, the rolled-back entry not among them',
    )
    t.same(
      a.map((entry) => entry._id),
      a.map((entry) => sequencedId('a', entry.seq)),
    )
    t.equal(a.at(-1)?.n, 20, 'the last committed is numbered last')
    t.same(
      entries.filter((entry) => entry._id.startsWith('b:')).map((entry) => [entry.seq, entry.n]),
      [[1, 100]],
      'partition b has its own sequence',
    )
    t.equal(await store.collection(`c${counter}`).count({}), 22, 'the writes beside them committed with them')
  })

  t.test('a transaction reads its own writes, by `_id` and through any other filter', async (t) => {
    const { collection: c, items } = await seed(6, (i) => ({ n: i % 3, group: `g${i % 2}`, _hash: `h${i}` }))
    const [changed, deleted] = items as [Item, Item]
    const added: Item = { _id: newObjectId(), n: 7, group: 'g1' }
    const ids = (records: Item[]) => records.map((record) => record._id)
    await store.transaction(async (tx) => {
      const inside = tx.collection<Item>(`c${counter}`)
      t.same(await inside.updateOne({ _id: changed._id }, { $set: { n: 7 } }), { ...changed, n: 7 })
      t.same(await inside.deleteOne({ _id: deleted._id }), deleted)
      await inside.insertOne(added)

      t.same(await inside.findOne({ _id: changed._id }), { ...changed, n: 7 }, 'by `_id`: the version written')
      t.same(
        await inside.findOne({ _id: changed._id, $and: [{ $or: [{ group: 'g0' }, { n: 0 }] }] }),
        { ...changed, n: 7 },
        'by `_id` with more terms',
      )
      t.equal(await inside.findOne({ _id: changed._id, n: changed.n }), null, 'not by its committed values')
      t.same(await inside.findOne({ _id: changed._id }, { projection: { n: 1 } }), { _id: changed._id, n: 7 })
      t.same(await inside.find({ _id: changed._id }, { skip: 1 }), [])
      t.same(await inside.findText({ _id: added._id }), [{ _id: added._id, json: JSON.stringify(added) }])
      t.equal(await inside.findOne({ _id: deleted._id }), null, 'a deleted record is gone')
      t.equal(await inside.updateOne({ _id: deleted._id }, { $set: { n: 1 } }), null)
      t.equal(await inside.deleteOne({ _id: deleted._id }), null)

      t.same(ids(await inside.find({ n: 7 })), [changed._id, added._id], 'records written that now match')
      t.same(ids(await inside.find({ n: 0 })), [items[3]?._id], 'not one that no longer does')
      t.same(ids(await inside.find({ n: 1 })), [items[4]?._id], 'nor a deleted one')
      t.same(ids(await inside.find({ group: 'g0' }, { sort: { n: -1 }, limit: 2 })), [changed._id, items[2]?._id])
      t.equal(await inside.count({}), 6)
      t.equal(await inside.count({ n: { $lt: 7 } }), 4)
    })
    t.same(await c.findOne({ _id: changed._id }), { ...changed, n: 7 })
    t.equal(await c.findOne({ _id: deleted._id }), null)
    t.same(await c.findOne({ _id: added._id }), added)
    t.same(ids(await c.find({ n: 7 })), [changed._id, added._id])
  })

  t.test("a transaction's equalities on text see the values its writes hold, in arrays too", async (t) => {
    const { items } = await seed(4, (i) => ({ n: i, group: 'old', tags: ['a'] }))
    const [moved, tagged, deleted, untouched] = items as [Item, Item, Item, Item]
    const ids = (records: Item[]) => records.map((record) => record._id)
    await store.transaction(async (tx) => {
      const inside = tx.collection<Item>(`c${counter}`)
      await inside.updateOne({ _id: moved._id }, { $set: { group: 'new' } })
      await inside.updateOne({ _id: tagged._id }, { $set: { tags: ['a', 'new'] } })
      await inside.deleteOne({ _id: deleted._id })
      const added = await inside.insertOne({ _id: newObjectId(), n: 9, group: 'new', tags: [] })
      t.same(ids(await inside.find({ group: 'new' })), [moved._id, added._id], 'a value written')
      t.same(ids(await inside.find({ group: 'old' })), [tagged._id, untouched._id], 'not a value overwritten')
      t.same(ids(await inside.find({ tags: 'new' })), [tagged._id], 'a value written in an array')
      t.same(ids(await inside.find({ group: 'new', n: { $gt: 0 } })), [added._id], 'every other term must hold too')
      t.equal(await inside.count({ tags: 'a' }), 3, 'not a deleted record')
    })
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
    t.same(await again.indexes(), [])
    await again.insertOne({ _id: newObjectId(), n: 2 })
    t.same(
      (await again.find({})).map((item) => item.n),
      [2],
      'made again after its drop, the collection holds only its new records',
    )
  })
}
