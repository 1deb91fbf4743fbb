import type { Test } from 'tap'
import { newObjectId, type Collection, type RecordStore, type Sort, type StoredRecord } from '../src/index.js'
import type { ContractTarget } from './record-store-contract.js'

export interface Named extends StoredRecord {
  name: string
  n: number
  g?: unknown
  v?: unknown
}

/** A record to seed: its label, and the fields sorted or filtered on. */
export interface Shape {
  name: string
  g?: unknown
  v?: unknown
}

/** A fresh collection per call, holding `shapes` in order (so `_id`s, the tie-breaker, follow it). */
export async function seedNamed(store: RecordStore, name: string, shapes: Shape[]): Promise<Collection<Named>> {
  const c = store.collection<Named>(name)
  for (const [n, shape] of shapes.entries()) await c.insertOne({ _id: newObjectId(), n, ...shape })
  return c
}

export const names = (records: Named[]): string[] => records.map((record) => record.name)

/**
 * How MongoDB sorts a field holding arrays and mixed types; expected orders are written by hand from its docs:
 * - https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/ (null and missing, numbers (int
 *   and double alike), strings, objects, arrays, booleans; "an ascending sort compares the smallest elements of
 *   the array according to the BSON type sort order, a descending sort the largest"; "a comparison of an empty
 *   array considers it as less than a null value or a missing field value")
 * - https://www.mongodb.com/docs/manual/reference/method/cursor.sort/ ("Sort on array fields"; ties keep no
 *   order of their own: the port appends `_id` in the last field's direction)
 * An element that is itself an array is compared whole, element by element (a prefix first), as its type,
 * https://www.mongodb.com/docs/manual/core/indexes/index-types/index-multikey/ (a nested array is one key).
 */
export function sortOrderContract(t: Test, target: ContractTarget): void {
  const dataDir = t.testdir()
  let store: RecordStore
  let counter = 0
  const fresh = () => `sorted${++counter}`

  t.before(async () => {
    store = await target.open(dataDir)
  })
  t.teardown(() => store.close())

  t.test(
    'a sort on a field of arrays and mixed types orders as MongoDB does, each way and on every path',
    async (t) => {
      const collection = fresh()
      const c = await seedNamed(store, collection, [
        { name: 'missing', g: 'x' },
        { name: 'null', g: 'x', v: null },
        { name: 'empty', g: 'x', v: [] },
        { name: 'int', g: 'x', v: 5 },
        { name: 'double', g: 'x', v: 2.5 },
        { name: 'numbers', g: 'x', v: [10, 1, 7] },
        { name: 'single', g: 'x', v: [6] },
        { name: 'string', g: 'x', v: 'b' },
        { name: 'strings', g: 'x', v: ['c', 'a'] },
        { name: 'mixed', g: 'x', v: ['z', 3, true] },
        { name: 'false', g: 'x', v: false },
        { name: 'object', g: 'x', v: { x: 1 } },
        { name: 'nested', g: 'x', v: [[0, 1], 'm'] },
        { name: 'nestedOnly', g: 'x', v: [[2], [0, 5]] },
        { name: 'withNull', g: 'x', v: [null, 4] },
        { name: 'true', g: 'x', v: true },
      ])
      await c.ensureIndex({ name: 'g', fields: { g: 1 } })
      const expected: Array<[Sort, string[]]> = [
        [
          { v: 1 },
          // [] first; null, missing and [null, 4] tie (by `_id`); least elements: 1, 2.5, 3 ('z', 3, true), 5, 6,
          // 'a', 'b', 'm' (a string is below the array [0, 1]), the object, [0, 5] (below [2]), false, true.
          ['empty', 'missing', 'null', 'withNull', 'numbers', 'double', 'mixed', 'int', 'single', 'strings'].concat([
            'string',
            'nested',
            'object',
            'nestedOnly',
            'false',
            'true',
          ]),
        ],
        [
          { v: -1 },
          // Greatest elements: true ('true', then 'mixed' by `_id` descending), false, [2] above [0, 1], the object,
          // 'c', 'b', 10, 6, 5, 4 (of [null, 4]), 2.5; null and missing; [] last.
          ['true', 'mixed', 'false', 'nestedOnly', 'nested', 'object', 'strings', 'string', 'numbers', 'single'].concat(
            ['int', 'withNull', 'double', 'null', 'missing', 'empty'],
          ),
        ],
      ]
      for (const [sort, order] of expected) {
        const label = JSON.stringify(sort)
        t.same(names(await c.find({}, { sort })), order, `${label}: every record`)
        t.same(names(await c.find({}, { sort, limit: 4 })), order.slice(0, 4), `${label}: limit`)
        t.same(names(await c.find({}, { sort, skip: 3, limit: 4 })), order.slice(3, 7), `${label}: skip`)
        // Narrowed by the index on `g`, not ordered by it: the first `limit` kept in a heap.
        t.same(names(await c.find({ g: 'x' }, { sort, limit: 5 })), order.slice(0, 5), `${label}: an index, limit`)
        t.same(
          names(await c.find({ g: 'x', n: { $gte: 0 } }, { sort, skip: 2, limit: 5 })),
          order.slice(2, 7),
          `${label}: an index and another term, skip and limit`,
        )
        t.same(
          (await c.findText({ g: 'x' }, { sort, limit: 3 })).map(({ json }) => (JSON.parse(json) as Named).name),
          order.slice(0, 3),
          `${label}: findText`,
        )
        await store.transaction(async (tx) => {
          const inside = tx.collection<Named>(collection)
          t.same(names(await inside.find({}, { sort })), order, `${label}: in a transaction`)
          t.same(names(await inside.find({ g: 'x' }, { sort, limit: 3 })), order.slice(0, 3), `${label}: in one, limit`)
        })
      }
    },
  )

  t.test("a compound sort takes each array's least or greatest element by that field's direction", async (t) => {
    const c = await seedNamed(store, fresh(), [
      { name: 'a', g: 1, v: [3, 8] },
      { name: 'b', g: 1, v: [5] },
      { name: 'c', g: 1, v: 4 },
      { name: 'd', g: 2, v: [1, 9] },
      { name: 'e', g: 2, v: [] },
      { name: 'f', g: 2, v: [2, 7] },
      { name: 'h', g: 1, v: [9] },
    ])
    await c.ensureIndex({ name: 'g', fields: { g: 1 } })
    const expected: Array<[Sort, string]> = [
      [{ g: 1, v: -1 }, 'habcdfe'],
      [{ g: -1, v: 1 }, 'edfacbh'],
      [{ v: 1, g: -1 }, 'edfacbh'],
      // 'h' and 'd' tie on 9: `g` ascending puts 'h' first.
      [{ v: -1, g: 1 }, 'hdafbce'],
    ]
    for (const [sort, order] of expected) {
      const label = JSON.stringify(sort)
      t.same(names(await c.find({}, { sort })).join(''), order, `${label}: every record`)
      t.same(names(await c.find({ g: { $gte: 1 } }, { sort, limit: 4 })).join(''), order.slice(0, 4), `${label}: heap`)
    }
  })

  t.test('a multikey index on the sorted field narrows a range but does not order the sort', async (t) => {
    const c = await seedNamed(store, fresh(), [
      { name: 'p', v: [3, 12] },
      { name: 'q', v: [15] },
      { name: 'r', v: 11 },
      { name: 's', v: [1, 2] },
      { name: 'u', v: [20, 0] },
      { name: 'w', v: 'x' },
    ])
    await c.ensureIndex({ name: 'v', fields: { v: 1 } })
    const cases: Array<[Record<string, unknown>, Sort, string]> = [
      // An element above 10: p (12), q, r, u (20); ordered by least elements 0, 3, 11, 15, or greatest 20, 15, 12, 11.
      [{ v: { $gt: 10 } }, { v: 1 }, 'uprq'],
      [{ v: { $gt: 10 } }, { v: -1 }, 'uqpr'],
      // An element above 10 and one (maybe another) below 13: p, r, u.
      [{ v: { $gt: 10, $lt: 13 } }, { v: 1 }, 'upr'],
      [{ v: { $gt: 10, $lt: 13 } }, { v: -1 }, 'upr'],
      [{}, { v: 1 }, 'usprqw'],
      [{}, { v: -1 }, 'wuqprs'],
    ]
    for (const [filter, sort, order] of cases) {
      const label = `${JSON.stringify(filter)} ${JSON.stringify(sort)}`
      t.same(names(await c.find(filter, { sort })).join(''), order, label)
      t.same(names(await c.find(filter, { sort, limit: 2 })).join(''), order.slice(0, 2), `${label} limit`)
    }
  })
}
