import t from 'tap'
import { newObjectId, openEmbeddedStore, openRecordStore, type Sort } from '../src/index.js'
import { sortInMemory } from '../src/in-memory-query.js'
import { normalizeSort } from '../src/sort-order.js'
import { names, seedNamed, sortOrderContract, type Shape } from './sort-order-contract.js'

sortOrderContract(t, { open: async (dataDir) => openEmbeddedStore(dataDir) })

const mongoUrl = process.env.QUIRE_TEST_MONGO_URL
if (mongoUrl) {
  const mongoDb = `quire_test_${newObjectId()}`
  sortOrderContract(t, { open: (dataDir) => openRecordStore({ dataDir, mongoUrl, mongoDb }) })
}

// Embedded only: it pages `after` by the sort's own comparison. The Mongo adapter pages with a `$gt`/`$lt`
// filter (src/keyset.ts), which on an array holds for any element, not for the one the sort compares.
t.test('`after` pages across ties of array sort values, off a heap, a scan and whole', async (t) => {
  const store = await openEmbeddedStore(t.testdir())
  t.teardown(() => store.close())
  const ties: Shape[] = [
    { name: 't0', g: 'x', v: [1, 9] },
    { name: 't1', g: 'x', v: 1 },
    { name: 't2', g: 'x', v: [9, 1] },
    { name: 't3', g: 'x', v: [] },
    { name: 't4', g: 'x', v: null },
    { name: 't5', g: 'x' },
    { name: 't6', g: 'x', v: [5, 1] },
    { name: 't7', g: 'x', v: [9] },
    { name: 't8', g: 'x', v: [] },
    { name: 't9', g: 'x', v: [1] },
    { name: 't10', g: 'x', v: 9 },
  ]
  const others = Array.from({ length: 60 }, (_, i) => ({ name: `o${i}`, g: 'y', v: [i, -i] }))
  const c = await seedNamed(store, 'ties', [...ties, ...others])
  await c.ensureIndex({ name: 'g', fields: { g: 1 } })
  const expected: Array<[Sort, string]> = [
    // Least elements: [] twice, null and missing, then 1 six times, then 9 twice; ties by `_id`.
    [{ v: 1 }, 't3 t8 t4 t5 t0 t1 t2 t6 t9 t7 t10'],
    // Greatest elements: 9 four times (`_id` descending), 5, 1 twice, null and missing, [] twice.
    [{ v: -1 }, 't10 t7 t2 t0 t6 t9 t1 t5 t4 t8 t3'],
    [{ v: 1, _id: -1 }, 't8 t3 t5 t4 t9 t6 t2 t1 t0 t10 t7'],
  ]
  for (const [sort, text] of expected) {
    const order = text.split(' ')
    const label = JSON.stringify(sort)
    // The index on `g` narrows to the 11 candidates (a heap keeps the page); `$ne` scans every record.
    for (const filter of [{ g: 'x' }, { g: { $ne: 'y' } }]) {
      const seen: string[] = []
      let after: string | undefined
      for (;;) {
        const page = await c.find(filter, { sort, limit: 2, after })
        if (page.length === 0) break
        seen.push(...names(page))
        after = page.at(-1)?._id
      }
      t.same(seen, order, `${label} ${JSON.stringify(filter)}: pages of 2`)
    }
    const all = await c.find({ g: 'x' }, { sort })
    t.same(names(all), order, `${label}: every match`)
    for (const [i, record] of all.entries()) {
      t.same(names(await c.find({ g: 'x' }, { sort, after: record._id })), order.slice(i + 1), `${label} after ${i}`)
    }
    t.same(
      names(await c.find({ g: 'x' }, { sort, limit: 3, after: { _id: all[4]?._id as string, v: all[4]?.v } })),
      order.slice(5, 8),
      `${label}: after a position holding an array`,
    )
  }
  const before = store.stats.reads
  t.same(names(await c.find({ g: 'x' }, { sort: { v: -1 }, limit: 2 })), ['t10', 't7'])
  t.ok(store.stats.reads - before < others.length, 'a page off the heap reads the candidates, not the collection')
})

t.test('one match is paged without its record decoded; two are ordered by it', async (t) => {
  const sort = normalizeSort({ n: -1 })
  const undecodable = () => {
    throw new Error('decoded')
  }
  t.same(sortInMemory(['only'], { sort }, undecodable), ['only'])
  t.same(sortInMemory(['only'], { sort, skip: 1 }, undecodable), [], 'skipped')
  t.same(sortInMemory(['only'], { sort, limit: 0 }, undecodable), [], 'a limit of none')
  const records = new Map([
    ['a', { _id: 'a', n: 1 }],
    ['b', { _id: 'b', n: 2 }],
  ])
  const recordOf = (id: string) => records.get(id) ?? { _id: id }
  t.same(sortInMemory(['a', 'b'], { sort }, recordOf), ['b', 'a'])
  t.same(sortInMemory(['a'], { sort, after: { _id: 'b', n: 2 } }, recordOf), ['a'], 'past `after`, compared')
  t.same(sortInMemory(['b'], { sort, after: { _id: 'a', n: 1 } }, recordOf), [], 'before `after`, left out')
})
