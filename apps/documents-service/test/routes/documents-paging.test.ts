import t from 'tap'
import { build, createDefinition, createDocument, documentsOf } from '../helper.js'

interface Page {
  data: { _id: string; n: number; title?: string }[]
  pagination: { hasNext: boolean; next?: string }
}

t.test('paging survives deletes: `after` continues from where the deleted document stood', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'notes', indexes: [{ fields: { n: 1 } }] })
  const core = documentsOf('notes')
  const ids: string[] = []
  // n descends while _id ascends, and two documents share each n: the sort and its `_id` tie-break both count.
  for (let i = 0; i < 12; i++) {
    ids.push((await createDocument(server, as.member, 'notes', { n: 5 - (i >> 1), title: `t${i}` }))._id)
  }
  const page = async (query: string, headers = as.member): Promise<Page> => {
    const response = await server.inject({ method: 'GET', url: `${core}?${query}`, headers })
    t.equal(response.statusCode, 200, query)
    return response.json() as Page
  }
  const remove = (id: string) => server.inject({ method: 'DELETE', url: `${core}/${id}`, headers: as.member })

  t.test('under the default order, `after` is an `_id`, whether or not it still exists', async (t) => {
    const first = await page('limit=3')
    t.match(first.pagination.next, new RegExp(`after=${ids[2]}$`))
    await remove(ids[2] as string)
    const second = await page(first.pagination.next as string)
    t.same(
      second.data.map((item) => item._id),
      ids.slice(3, 6),
    )
    const descending = await page(`sort=${encodeURIComponent('{"_id":-1}')}&after=${ids[2]}&limit=2`)
    t.same(
      descending.data.map((item) => item._id),
      [ids[1], ids[0]],
      'and in the reverse `_id` order',
    )
  })

  t.test('under another sort, `next` carries a cursor (the sort values and `_id` of the last item)', async (t) => {
    const sort = encodeURIComponent('{"n":1}')
    const expected = (await page(`sort=${sort}&limit=100`)).data.map((item) => item._id)
    const first = await page(`sort=${sort}&limit=3`)
    const cursor = /after=(~[\w-]+)/.exec(first.pagination.next ?? '')?.[1] ?? ''
    const last = first.data[2] as Page['data'][number]
    t.same(JSON.parse(Buffer.from(cursor.slice(1), 'base64url').toString()), [last.n, last._id])
    t.equal((await remove(last._id)).statusCode, 200)
    const second = await page(first.pagination.next as string)
    t.same(
      second.data.map((item) => item._id),
      expected.slice(3, 6),
      'the next page starts right after the deleted document',
    )
    const projected = await page(`sort=${sort}&limit=2&fields=${encodeURIComponent('{"title":1}')}`)
    t.notOk('n' in (projected.data[0] ?? {}), 'the sort field projected away')
    t.match(projected.pagination.next, /after=~/, 'still gives a cursor')
    const remaining = expected.filter((id) => id !== last._id)
    const rest = await page(projected.pagination.next as string)
    t.same(
      rest.data.map((item) => item._id),
      remaining.slice(2, 4),
    )
    const byId = await page(`sort=${sort}&limit=2&after=${expected[0]}`)
    t.same(
      byId.data.map((item) => item._id),
      remaining.slice(1, 3),
      'an `_id` as `after` still works while its document exists',
    )
  })

  t.test('a hidden document anchors nothing it could leak', async (t) => {
    const secret = await createDocument(server, as.admin, 'notes', { n: 0, accessGroups: ['sales'] })
    const byId = await page(`after=${secret._id}`)
    t.same(byId.data, [], 'under the `_id` order its `_id` is all its place says')
    const sorted = await server.inject({
      method: 'GET',
      url: `${core}?after=${secret._id}&sort=${encodeURIComponent('{"n":1}')}`,
      headers: as.member,
    })
    t.equal(sorted.statusCode, 400, 'under another sort its values would show: refused as before')
  })
})
