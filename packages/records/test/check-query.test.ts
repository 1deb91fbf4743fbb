import t from 'tap'
import { checkFilter, checkProjection, checkSort, InvalidQueryError } from '../src/index.js'

t.test('accepts every allowed operator', async (t) => {
  const filter = {
    a: { $eq: 1, $ne: 2, $gt: 0, $gte: 0, $lt: 9, $lte: 9, $in: [1], $nin: [3], $exists: true, $type: 'number' },
    b: { $regex: '^x', $options: 'ims' },
    c: { $not: { $size: 2 } },
    d: { $elemMatch: { e: 1 } },
    f: { $all: [1, 2] },
    $and: [{ g: 1 }],
    $or: [{ g: 2 }],
    $nor: [{ g: 3 }],
    'nested.path': null,
  }
  t.same(checkFilter(filter), filter)
  t.same(checkFilter(undefined), {})
})

t.test('rejects forbidden operators, depth, size, long regex and prototype keys', async (t) => {
  const rejects = (filter: unknown, message: RegExp) => t.throws(() => checkFilter(filter), message)
  rejects({ $where: 'sleep(1000)' }, /\$where is not allowed/)
  rejects({ $expr: { $gt: ['$a', 1] } }, /\$expr is not allowed/)
  rejects({ a: { $function: { body: 'x' } } }, /\$function is not allowed/)
  let deep: Record<string, unknown> = { a: 1 }
  for (let i = 0; i < 10; i++) deep = { $and: [deep] }
  rejects(deep, /nested deeper/)
  rejects({ a: { $in: Array.from({ length: 500 }, (_, i) => i) } }, /larger than/)
  rejects({ a: { $regex: 'x'.repeat(300) } }, /\$regex longer/)
  rejects({ a: { $regex: '(' } }, /not a valid regular expression/)
  rejects({ a: { $regex: '(a)\\1' } }, /cannot run in linear time/)
  rejects({ a: { $regex: 'a(?=b)' } }, /cannot run in linear time/)
  for (const options of ['x', 'g', 'ii', 'iu', 1]) {
    rejects({ a: { $regex: 'a', $options: options } }, /\$options may only/)
  }
  rejects({ a: { $options: 'i' } }, /\$options needs a \$regex/)
  rejects(JSON.parse('{"__proto__": {"x": 1}}'), /invalid field name/)
  rejects({ 'a.constructor': 1 }, /invalid field name/)
  rejects([], /must be an object/)
  t.throws(() => checkFilter({ $where: 'x' }), InvalidQueryError)
})

t.test('sort and projection', async (t) => {
  t.same(checkSort({ a: 1, 'b.c': -1 }), { a: 1, 'b.c': -1 })
  t.throws(() => checkSort({ a: 2 }), /must be 1 or -1/)
  t.throws(() => checkSort({ $natural: 1 }), /invalid field name/)
  t.same(checkProjection({ _id: 0, a: 1 }), { _id: 0, a: 1 })
  t.throws(() => checkProjection({ a: 1, b: 0 }), /cannot mix/)
  t.throws(() => checkProjection({ a: { $slice: 1 } }), /must be 0 or 1/)
})
