import t from 'tap'
import {
  keepsPermissions,
  permissionsField,
  permissionsOf,
  visibilityFilter,
  withCondition,
} from '../../src/lib/visibility.js'

const administrator = { administrator: true, groups: [] }
const member = { administrator: false, groups: [] }
const sales = { administrator: false, groups: ['sales'] }

t.test('_permissions: full for administrators, the actions for members, one frozen object per role', async (t) => {
  t.same(permissionsOf(administrator), {
    fullPermissions: true,
    userActionPermissions: ['read', 'create', 'update', 'delete'],
  })
  t.same(permissionsOf(member), {
    fullPermissions: false,
    userActionPermissions: ['read', 'create', 'update', 'delete'],
  })
  t.equal(permissionsOf(member), permissionsOf(sales))
  t.ok(Object.isFrozen(permissionsOf(member)))
  for (const role of [administrator, member]) {
    t.same(JSON.parse(`{${permissionsField(role)}}`), { _permissions: permissionsOf(role) }, 'the text says the same')
  }
})

t.test('who sees what', async (t) => {
  t.equal(visibilityFilter(administrator), undefined, 'administrators see all')
  t.same(visibilityFilter(member), { 'accessGroups.0': { $exists: false } })
  t.same(visibilityFilter(sales), {
    $or: [{ 'accessGroups.0': { $exists: false } }, { accessGroups: { $in: ['sales'] } }],
  })
  t.same(withCondition({ a: 1 }, undefined), { a: 1 })
  t.same(withCondition({ a: 1, $and: [{ b: 2 }] }, { c: 3 }), { a: 1, $and: [{ b: 2 }, { c: 3 }] })
})

t.test('a listed item keeps `_permissions` unless the projection leaves it out', async (t) => {
  t.ok(keepsPermissions({ projection: {} }))
  t.ok(keepsPermissions({ projection: { title: 0 } }))
  t.notOk(keepsPermissions({ projection: { _permissions: 0 } }))
  t.notOk(keepsPermissions({ projection: { title: 1 } }))
  t.ok(keepsPermissions({ projection: { title: 1, _permissions: 1 } }))
})
