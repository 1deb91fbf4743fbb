import t from 'tap'
import { build, createDefinition, createDocument, documentsOf, storedDocuments } from '../helper.js'

const ALL = ['read', 'create', 'update', 'delete', 'changeAccessGroups']
const LIMITED = ['read', 'create', 'update', 'delete']

t.test('members write only the access groups they belong to; _permissions says so per document', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const stored = (id: string) => storedDocuments(resources.store, definition._id).findOne({ _id: id })

  const foreign = await server.inject({
    method: 'POST',
    url: `${core}/new`,
    headers: as.sales,
    payload: { title: 'x', accessGroups: ['sales', 'hr'] },
  })
  t.equal(foreign.statusCode, 403, 'create with a group the member is not in')
  t.equal(foreign.json().error, 'forbidden')
  t.match(foreign.json().description, /add "hr"/)
  t.equal(await storedDocuments(resources.store, definition._id).count({}), 0, 'nothing stored')

  const own = await createDocument(server, as.sales, 'orders', { title: 'mine', accessGroups: ['sales'] })
  t.same(own._permissions, { fullPermissions: false, userActionPermissions: ALL })
  const shared = await createDocument(server, as.admin, 'orders', { title: 'both', accessGroups: ['sales', 'hr'] })
  t.same(shared._permissions, { fullPermissions: true, userActionPermissions: ALL }, 'administrators set any groups')

  const url = `${core}/${shared._id}`
  const got = await server.inject({ method: 'GET', url, headers: as.sales })
  t.same(got.json()._permissions, { fullPermissions: false, userActionPermissions: LIMITED }, 'hr is not theirs')
  const listed = await server.inject({ method: 'GET', url: `${core}?sort=%7B%22title%22%3A1%7D`, headers: as.sales })
  t.same(
    listed
      .json()
      .data.map((item: { title: string; _permissions: { userActionPermissions: string[] } }) => [
        item.title,
        item._permissions.userActionPermissions,
      ]),
    [
      ['both', LIMITED],
      ['mine', ALL],
    ],
  )
  const projected = await server.inject({
    method: 'GET',
    url: `${core}?sort=%7B%22title%22%3A1%7D&fields=${encodeURIComponent('{"title":1,"_permissions":1}')}`,
    headers: as.sales,
  })
  t.same(
    projected.json().data[0],
    { _id: shared._id, title: 'both', _permissions: { fullPermissions: false, userActionPermissions: LIMITED } },
    'projected: groups read, not shown',
  )

  for (const [method, payload] of [
    ['PATCH', { accessGroups: ['sales'] }],
    ['PATCH', { accessGroups: null }],
    ['PUT', { title: 'both' }],
    ['PATCH', { accessGroups: ['sales', 'hr', 'board'] }],
  ] as const) {
    const refused = await server.inject({ method, url, headers: as.sales, payload })
    t.equal(refused.statusCode, 403, `${method} ${JSON.stringify(payload)}`)
  }
  t.same((await stored(shared._id))?.accessGroups, ['sales', 'hr'], 'unchanged')

  const kept = await server.inject({ method: 'PATCH', url, headers: as.sales, payload: { title: 'edited' } })
  t.equal(kept.statusCode, 200, 'other fields: the groups are kept')
  const left = await server.inject({ method: 'PATCH', url, headers: as.sales, payload: { accessGroups: ['hr'] } })
  t.equal(left.statusCode, 200, 'a member may remove a group of theirs, keeping the others')
  t.same((await stored(shared._id))?.accessGroups, ['hr'])

  const unhide = await server.inject({
    method: 'PUT',
    url: `${core}/${own._id}`,
    headers: as.member,
    payload: { title: 'mine' },
  })
  t.equal(unhide.statusCode, 404, 'a member outside the groups does not see the document at all')
  const opened = await server.inject({
    method: 'PUT',
    url: `${core}/${own._id}`,
    headers: as.sales,
    payload: { title: 'open' },
  })
  t.equal(opened.statusCode, 200, 'removing their own group (PUT without accessGroups) is allowed')
  const admin = await server.inject({
    method: 'PATCH',
    url: `${core}/${own._id}`,
    headers: as.admin,
    payload: { accessGroups: ['board'] },
  })
  t.equal(admin.statusCode, 200)
})
