import t from 'tap'
import { newObjectId } from '@quire/records'
import { build, createDefinition, documentsOf, storedDocuments } from '../helper.js'

const CATEGORIES = ['a', 'b', 'c', 'd', 'e']

t.test('the list query', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, {
    name: 'items',
    indexes: [{ fields: { category: 1, price: -1 } }],
  })
  const core = documentsOf('items')
  const now = new Date().toISOString()
  const ids: string[] = []
  // Seeded in one commit: the paging, not the writing, is under test.
  await resources.store.transaction(async (tx) => {
    const documents = storedDocuments(tx, definition._id)
    for (let n = 0; n < 1000; n++) {
      const _id = newObjectId()
      ids.push(_id)
      await documents.insertOne({
        _id,
        _createdOn: now,
        _createdByUserId: 'seed',
        _lastModifiedOn: now,
        _lastModifiedByUserId: 'seed',
        _documentDefinitionId: definition._id,
        _environmentId: 'env_a',
        _hash: `h${n}`,
        status: 'ready',
        accessGroups: [],
        n,
        category: CATEGORIES[n % CATEGORIES.length],
        price: (n * 7919) % 1000,
        name: `item ${String(n % 100).padStart(3, '0')}`,
      })
    }
  })
  const list = (query: string, headers = as.admin) => server.inject({ method: 'GET', url: `${core}?${query}`, headers })

  t.test('paging under three sorts visits every document exactly once', async (t) => {
    for (const sort of [{ category: 1 }, { price: -1 }, { name: 1, category: -1 }] as Record<string, 1 | -1>[]) {
      const seen: string[] = []
      let query = `limit=37&sort=${encodeURIComponent(JSON.stringify(sort))}`
      let previous: Record<string, unknown> | undefined
      let ordered = true
      for (let page = 0; page < 100; page++) {
        const response = await list(query)
        t.equal(response.statusCode, 200)
        const { data, pagination } = response.json()
        for (const item of data) {
          if (previous && compare(previous, item, sort) > 0) ordered = false
          previous = item
          seen.push(item._id)
        }
        t.equal(pagination.hasPrevious, page > 0)
        if (!pagination.hasNext) {
          t.notOk('next' in pagination, 'no next on the last page')
          break
        }
        t.match(pagination.next, /^limit=37&exclude=%5B%5D&after=~[\w-]+&/, 'limit, exclude, after (a cursor) first')
        query = pagination.next
      }
      t.equal(seen.length, 1000, `${JSON.stringify(sort)}: 1000 visits`)
      t.equal(new Set(seen).size, 1000, `${JSON.stringify(sort)}: each document once`)
      t.ok(ordered, `${JSON.stringify(sort)}: in order`)
    }
  })

  t.test('filters, projections, options, skip, count', async (t) => {
    const filtered = await list(
      `query=${encodeURIComponent('{"category":"b","price":{"$gte":500}}')}&count=true&limit=5`,
    )
    t.equal(filtered.statusCode, 200)
    const { data, pagination } = filtered.json()
    t.equal(data.length, 5)
    t.ok(data.every((item: { category: string; price: number }) => item.category === 'b' && item.price >= 500))
    t.equal(pagination.total, 100)
    t.match(pagination.next, /query=%7B%22category%22%3A%22b%22/, 'next keeps the query in force')
    const second = (await list(pagination.next)).json()
    t.ok(second.data.every((item: { category: string }) => item.category === 'b'))

    const projected = (await list('limit=2&fields=%7B%22n%22%3A1%7D')).json().data
    t.same(Object.keys(projected[0]).sort(), ['_id', 'n'], 'fields: inclusion, _id kept')
    const excluded = (await list(`limit=1&exclude=${encodeURIComponent('["category","name","_permissions"]')}`)).json()
      .data[0]
    t.notOk('category' in excluded || 'name' in excluded || '_permissions' in excluded)
    t.ok('price' in excluded)
    t.ok('_permissions' in (await list('limit=1')).json().data[0], 'computed permissions on listed items')

    const viaOptions = (
      await list(`options=${encodeURIComponent('{"sort":{"n":-1},"skip":2,"limit":3,"fields":{"n":1}}')}`)
    ).json()
    t.same(
      viaOptions.data.map((item: { n: number }) => item.n),
      [997, 996, 995],
    )
    t.equal(viaOptions.pagination.hasPrevious, true, 'skip moved past the start')
    const explicitWins = (await list(`limit=1&options=${encodeURIComponent('{"limit":3}')}`)).json()
    t.equal(explicitWins.data.length, 1)

    const skipped = (await list('skip=998')).json()
    t.equal(skipped.data.length, 2)
    t.equal(skipped.pagination.hasNext, false)
    t.equal((await list('')).json().data.length, 100, 'limit defaults to 100')
    t.equal((await list('limit=800')).json().data.length, 800)
    const regex = (await list(`query=${encodeURIComponent('{"name":{"$regex":"^item 00[12]$"}}')}&limit=800`)).json()
    t.equal(regex.data.length, 20)
  })

  t.test('a listed document is the document as a get answers it', async (t) => {
    const response = await list(
      `limit=3&query=${encodeURIComponent('{"category":"c"}')}&sort=${encodeURIComponent('{"price":-1}')}`,
    )
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    const { data } = response.json()
    t.equal(data.length, 3)
    for (const item of data) {
      const got = await server.inject({ method: 'GET', url: `${core}/${item._id}`, headers: as.admin })
      t.same(item, got.json(), `document ${item._id}`)
    }
  })

  t.test('forbidden operators and malformed values: 400 invalid_query naming the parameter', async (t) => {
    const cases: [string, RegExp][] = [
      [`query=${encodeURIComponent('{"$where":"this.n > 1"}')}`, /^query: .*\$where/],
      [`query=${encodeURIComponent('{"$expr":{"$gt":["$n",1]}}')}`, /^query: .*\$expr/],
      [
        `query=${encodeURIComponent('{"n":{"$function":{"body":"return true","args":[],"lang":"js"}}}')}`,
        /^query: .*\$function/,
      ],
      [`query=${encodeURIComponent('{"$or":[{"n":{"$where":"1"}}]}')}`, /^query: .*\$where/],
      [`query=${encodeURIComponent('{"__proto__":{"x":1}}')}`, /^query: /],
      ['query=%7Bnot-json', /^query: is not valid JSON/],
      ['query=%5B1%5D', /^query: /],
      [`sort=${encodeURIComponent('{"n":2}')}`, /^sort: /],
      ['sort=n', /^sort: is not valid JSON/],
      [`fields=${encodeURIComponent('{"a":1,"b":0}')}`, /^fields: /],
      [`exclude=${encodeURIComponent('{"a":1}')}`, /^exclude: /],
      [`options=${encodeURIComponent('{"where":1}')}`, /^options: /],
      [`options=${encodeURIComponent('{"limit":900}')}`, /^options\.limit: /],
      [`options=${encodeURIComponent('{"sort":{"$natural":1}}')}`, /^options\.sort: /],
      [`after=${newObjectId()}&sort=${encodeURIComponent('{"n":1}')}`, /^after: /],
      [`after=~${Buffer.from('[1]').toString('base64url')}&sort=${encodeURIComponent('{"n":1}')}`, /^after: /],
      [
        `after=~${Buffer.from('[{"$gt":1},"x"]').toString('base64url')}&sort=${encodeURIComponent('{"n":1}')}`,
        /^after: /,
      ],
      ['after=~%25%25', /^after: /],
    ]
    for (const [query, description] of cases) {
      const response = await list(query)
      t.equal(response.statusCode, 400, query)
      t.equal(response.json().error, 'invalid_query', query)
      t.match(response.json().description, description, query)
    }
    for (const query of ['limit=0', 'limit=801', 'skip=-1', 'limit=ten']) {
      const response = await list(query)
      t.equal(response.statusCode, 400, query)
      t.equal(response.json().error, 'validation_error')
      t.match(response.json().description, /querystring\/(limit|skip)/)
    }
  })
})

function compare(a: Record<string, unknown>, b: Record<string, unknown>, sort: Record<string, number>): number {
  for (const [field, direction] of Object.entries(sort)) {
    const x = a[field] as string | number
    const y = b[field] as string | number
    if (x !== y) return (x < y ? -1 : 1) * direction
  }
  return 0
}
