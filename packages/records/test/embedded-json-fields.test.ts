import t from 'tap'
import { pathInText } from '../src/embedded/json-fields.js'
import { getPath } from '../src/sort-order.js'

t.test('a path read from the record text is what it is in the decoded record', async (t) => {
  const records: unknown[] = [
    {},
    { _id: 'a', price: 12.5, name: 'x' },
    { _id: 'b', before: { price: 1, note: '"price":2' }, list: [{ price: 3 }], price: -4e-7 },
    { _id: 'c', 'pr"ice': 1, 'with\\slash': 2, price: 'quote " and \\ slash \\', tail: true },
    { _id: 'd', text: 'end with backslash \\', price: null, flag: false, nested: { deep: { value: [1, 2] } } },
    { _id: 'e', price: [3, 1, [2]], emoji: '😀 é', other: { price: 9 } },
    { _id: 'f', price: { amount: 1, currency: 'EUR' }, last: '' },
    { _id: 'g', unicode: '\u2028 \u0000 é', price: '😀', arr: [], obj: {} },
    { _id: 'h', ['__proto__']: 5, price: 1e21 },
    { _id: 'i', 'x"price': 1, note: ',"price":7', price: 2 },
    { _id: 'j', 'a\u0001': 3, price: 'after a control character', tags: ['x'] },
    { _id: 'k', tags: ['"price":1'], price: 4 },
    { _id: 'l', note: '{"price":5}', other: 1 },
  ]
  const paths = [
    'price',
    '_id',
    'missing',
    'nested.deep.value',
    'nested.deep',
    'list.0.price',
    'before.price',
    'price.amount',
  ]
  paths.push(
    'pr"ice',
    'with\\slash',
    'tail',
    'flag',
    'emoji',
    'unicode',
    'last',
    'arr',
    'obj',
    'price.1',
    'other.price',
  )
  for (const [i, record] of records.entries()) {
    const json = JSON.stringify(record)
    for (const path of paths) t.same(pathInText(json, path), getPath(JSON.parse(json), path), `record ${i}: ${path}`)
  }
  t.equal(pathInText('{"a": 1}', 'a'), 1, 'text laid out otherwise is decoded whole')
})
