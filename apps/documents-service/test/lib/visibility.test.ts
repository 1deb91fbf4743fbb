import t from 'tap'
import {
  checkGroupsWrite,
  documentPermissions,
  documentPermissionsField,
  keepsPermissions,
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
})

t.test("a document's _permissions: changeAccessGroups for who may remove any of its groups", async (t) => {
  const all = ['read', 'create', 'update', 'delete', 'changeAccessGroups']
  const hr = { administrator: false, groups: ['hr'] }
  t.same(documentPermissions(administrator, ['x']), { fullPermissions: true, userActionPermissions: all })
  t.same(documentPermissions(sales, ['sales']), { fullPermissions: false, userActionPermissions: all })
  t.same(documentPermissions(sales, []), { fullPermissions: false, userActionPermissions: all })
  t.same(documentPermissions(sales, null), { fullPermissions: false, userActionPermissions: all }, 'missing: none')
  t.same(documentPermissions(sales, ['sales', 'hr']), permissionsOf(member), 'not every group is theirs')
  const texts: [string, typeof sales][] = [
    ['{"_id":"a","accessGroups":["sales","hr"],"_hash":"h"}', sales],
    ['{"_id":"a","x":{"accessGroups":[]},"s":"\\"accessGroups\\":[]","accessGroups":["hr"],"_hash":"h"}', sales],
    ['{"_id":"a","list":[{"accessGroups":["hr"]}],"accessGroups":["sales"],"_hash":"h"}', hr],
    ['{"_id":"a","accessGroups":["sales"],"_hash":"h"}', sales],
    ['{"_id":"a","x":[{"a":"]}"}],"_hash":"h"}', hr],
  ]
  for (const [json, role] of texts) {
    const record = JSON.parse(json) as { accessGroups?: unknown }
    t.same(
      JSON.parse(`{${documentPermissionsField(role, json)}}`),
      { _permissions: documentPermissions(role, record.accessGroups) },
      `the text says the same: ${json}`,
    )
  }
  t.same(JSON.parse(`{${documentPermissionsField(administrator, '{}')}}`)._permissions.userActionPermissions, all)
})

t.test('writes of accessGroups: administrators any; members add and remove only their own groups', async (t) => {
  t.doesNotThrow(() => checkGroupsWrite(administrator, ['hr'], ['x']))
  t.doesNotThrow(() => checkGroupsWrite(sales, [], ['sales']))
  t.doesNotThrow(() => checkGroupsWrite(sales, ['sales', 'hr'], ['hr']), 'removes their own, keeps another')
  t.doesNotThrow(() => checkGroupsWrite(sales, ['hr'], ['hr', 'sales']))
  t.throws(() => checkGroupsWrite(sales, [], ['hr']), { code: 'forbidden', statusCode: 403, message: /add "hr"/ })
  t.throws(() => checkGroupsWrite(sales, ['hr', 'sales'], ['sales']), { message: /remove "hr"/ })
  t.throws(() => checkGroupsWrite(member, ['a'], ['b']), { message: /add "b" or remove "a"/ })
})

t.test('who sees what', async (t) => {
  t.equal(visibilityFilter(administrator), undefined, 'administrators see all')
  t.same(visibilityFilter(member), { 'accessGroups.0': { $exists: false } })
  t.same(visibilityFilter(sales), {
    $or: [
      { 'accessGroups.0': { $exists: false } },
      { accessGroups: { $in: ['sales'] } },
      { 'accessGroups.memberGroupIds': { $in: ['sales'] } },
    ],
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
