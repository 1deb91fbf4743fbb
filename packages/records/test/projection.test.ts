import t from 'tap'
import { applyUpdate } from '../src/apply-update.js'
import { project } from '../src/in-memory-query.js'

const doc = { _id: 'a', x: 1, y: { z: 2, w: 3 }, arr: [1, { z: 5, w: 6 }, null], d: new Date(0) }

t.test('compiled projections keep Mongo semantics', async (t) => {
  t.same(project([doc], { _id: 1 }), [{ _id: 'a' }])
  t.same(project([doc], { x: 1 }), [{ _id: 'a', x: 1 }])
  t.same(project([doc], { x: 1, _id: 0 }), [{ x: 1 }])
  t.same(project([doc], { x: 0 }), [{ _id: 'a', y: { z: 2, w: 3 }, arr: [1, { z: 5, w: 6 }, null], d: new Date(0) }])
  t.same(project([doc], { 'y.z': 1, 'y.w': 1 }), [{ _id: 'a', y: { z: 2, w: 3 } }])
  t.same(project([doc], { 'y.z': 0 }), [
    { _id: 'a', x: 1, y: { w: 3 }, arr: [1, { z: 5, w: 6 }, null], d: new Date(0) },
  ])
  t.same(project([doc], { 'arr.z': 1 }), [{ _id: 'a', arr: [{ z: 5 }] }])
  t.same(project([doc], { 'arr.w': 0, _id: 0, x: 0, y: 0, d: 0 }), [{ arr: [1, { z: 5 }, null] }])
  t.same(project([doc], { missing: 1 }), [{ _id: 'a' }])
  t.same(project([doc], { 'x.q': 1 }), [{ _id: 'a' }])
  t.same(project([doc], {}), [doc])
  t.equal(project([doc], { x: 1 })[0]?.y, undefined)
})

t.test('top-level $set / $unset without mingo', async (t) => {
  const before = { _id: 'a', x: 1, y: { z: 1 }, tags: ['a'] }
  const after = applyUpdate(before, { $set: { x: 2, tags: ['b'], n: null }, $unset: { y: 1 } })
  t.same(after, { _id: 'a', x: 2, tags: ['b'], n: null })
  t.same(before, { _id: 'a', x: 1, y: { z: 1 }, tags: ['a'] }, 'the record read is left alone')
  t.same(applyUpdate(before, { $set: { 'y.w': 2 } }), { _id: 'a', x: 1, y: { z: 1, w: 2 }, tags: ['a'] })
})
