import t from 'tap'
import { build, createDefinition, createDocument, documentsOf, storedDocuments } from '../helper.js'

const ALL = ['read', 'create', 'update', 'delete', 'changeAccessGroups']
const LIMITED = ['read', 'create', 'update', 'delete']

/** An access group as the platform stores it on a document. */
const accessGroup = (_id: string, members: { users?: string[]; groups?: string[] }) => ({
  _id,
  memberUserIds: members.users ?? [],
  memberGroupIds: members.groups ?? [],
  memberRelatedAccessGroupIds: [],
})

t.test("the platform's access-group objects: stored as sent, and only their members see the document", async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  // Each member's user id, as a document they create records it.
  const memberId = (await createDocument(server, as.member, 'orders'))._createdByUserId as string
  const salesId = (await createDocument(server, as.sales, 'orders'))._createdByUserId as string

  const byUser = { ...accessGroup('ag-user', { users: [memberId] }), name: 'Just the member' }
  const byGroup = accessGroup('ag-sales', { groups: ['sales'] })
  const forMember = await createDocument(server, as.admin, 'orders', { title: 'member', accessGroups: [byUser] })
  const forSales = await createDocument(server, as.admin, 'orders', { title: 'sales', accessGroups: [byGroup] })
  const mixed = await createDocument(server, as.admin, 'orders', { title: 'mixed', accessGroups: ['hr', byGroup] })
  t.same(forMember.accessGroups, [byUser], 'answered as sent, other fields too')
  const stored = await storedDocuments(resources.store, definition._id).findOne({ _id: forMember._id })
  t.same(stored?.accessGroups, [byUser], 'stored as sent')

  const get = (as: Record<string, string>, id: string) =>
    server.inject({ method: 'GET', url: `${core}/${id}`, headers: as })
  const titles = async (as: Record<string, string>) =>
    (await server.inject({ method: 'GET', url: `${core}?sort=%7B%22title%22%3A1%7D`, headers: as }))
      .json()
      .data.map((item: { title?: string }) => item.title)
      .filter(Boolean)

  t.same(await titles(as.member), ['member'], 'named in memberUserIds')
  t.same(await titles(as.sales), ['mixed', 'sales'], 'one of their groups in memberGroupIds')
  t.same(await titles(as.admin), ['member', 'mixed', 'sales'], 'administrators see all')
  t.equal((await get(as.sales, forMember._id)).statusCode, 404, 'not a member: as if it did not exist')
  t.equal((await get(as.member, forSales._id)).statusCode, 404)
  t.same((await get(as.member, forMember._id)).json().accessGroups, [byUser])

  t.same((await get(as.member, forMember._id)).json()._permissions.userActionPermissions, ALL, 'in every group')
  t.same((await get(as.sales, mixed._id)).json()._permissions.userActionPermissions, LIMITED, '"hr" is not theirs')
  t.same(
    (await server.inject({ method: 'GET', url: core, headers: as.sales }))
      .json()
      .data.find((item: { _id: string }) => item._id === mixed._id)._permissions.userActionPermissions,
    LIMITED,
    'the same in a list',
  )
  t.not(salesId, memberId)
})

t.test('members write only the access-group objects they are in; changing members is a change', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const memberId = (await createDocument(server, as.member, 'orders'))._createdByUserId as string
  const write = (as: Record<string, string>, method: 'POST' | 'PATCH', url: string, payload: object) =>
    server.inject({ method, url, headers: as, payload })

  const notTheirs = await write(as.sales, 'POST', `${core}/new`, {
    accessGroups: [accessGroup('ag-hr', { groups: ['hr'] })],
  })
  t.equal(notTheirs.statusCode, 403, 'a group object the member is not in')
  t.match(notTheirs.json(), { error: 'forbidden', description: /add "ag-hr"/ })

  const beside = await write(as.sales, 'POST', `${core}/new`, {
    title: 'beside',
    accessGroups: ['sales', accessGroup('ag-sales', { groups: ['sales'] })],
  })
  t.equal(beside.statusCode, 201, 'objects beside group names')

  const own = await createDocument(server, as.member, 'orders', {
    title: 'own',
    accessGroups: [accessGroup('ag-me', { users: [memberId] })],
  })
  const url = `${core}/${own._id}`
  t.equal((await write(as.member, 'PATCH', url, { title: 'changed' })).statusCode, 200, 'a member named edits it')

  const mixed = await createDocument(server, as.admin, 'orders', {
    accessGroups: ['hr', accessGroup('ag-sales', { groups: ['sales'] })],
  })
  const widened = await write(as.sales, 'PATCH', `${core}/${mixed._id}`, {
    accessGroups: ['hr', accessGroup('ag-sales', { groups: ['sales'], users: [memberId] })],
  })
  t.equal(widened.statusCode, 200, 'a member of the object may change its members')
  const dropped = await write(as.sales, 'PATCH', `${core}/${mixed._id}`, {
    accessGroups: [accessGroup('ag-sales', { groups: ['sales'] })],
  })
  t.equal(dropped.statusCode, 403, 'but may not remove a group that is not theirs')
  t.match(dropped.json().description, /remove "hr"/)

  const nameless = await write(as.admin, 'POST', `${core}/new`, { accessGroups: [{ memberUserIds: [memberId] }] })
  t.equal(nameless.statusCode, 400, 'an access-group object needs its _id')
  t.equal(nameless.json().error, 'validation_error')
})
