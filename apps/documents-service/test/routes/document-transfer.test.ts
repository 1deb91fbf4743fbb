import t from 'tap'
import { parse } from 'csv-parse/sync'
import type { App } from '@quire/service-kit'
import { build, createDefinition, createDocument, documentsOf, storedDocuments } from '../helper.js'

const FIELDS = {
  title: { type: 'string', required: true },
  price: { type: 'number' },
  done: { type: 'boolean' },
  tags: { type: 'array' },
  place: { type: 'location' },
}

const TYPES = {
  ndjson: 'application/x-ndjson',
  json: 'application/json',
  csv: 'text/csv',
} as const

const exportOf = (server: App, headers: Record<string, string>, ddId: string, query: Record<string, string> = {}) =>
  server.inject({ method: 'GET', url: `${documentsOf(ddId)}/export`, headers, query })

const importInto = (
  server: App,
  headers: Record<string, string>,
  ddId: string,
  format: keyof typeof TYPES,
  payload: string,
  extra: Record<string, string> = {},
) =>
  server.inject({
    method: 'POST',
    url: `${documentsOf(ddId)}/import`,
    headers: { ...headers, 'content-type': TYPES[format], ...extra },
    payload,
  })

/** The user fields of stored documents, by title, for comparing what two definitions hold. */
async function contents(server: App, headers: Record<string, string>, ddId: string) {
  const response = await server.inject({
    method: 'GET',
    url: documentsOf(ddId),
    headers,
    query: { sort: '{"title":1}', exclude: '["_id","_createdOn","_lastModifiedOn","_hash","_permissions"]' },
  })
  return (response.json().data as Record<string, unknown>[]).map((document) => {
    const fields: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(document)) if (!key.startsWith('_')) fields[key] = value
    return fields
  })
}

t.test('export then import gives the same documents back, in each format', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'books', fields: FIELDS })
  const seeds = [
    { title: 'Alpha', price: 12.5, done: true, tags: ['a', 'b'], place: { longitude: 1, latitude: 2 } },
    { title: 'Beta, "quoted"\nline', price: -3, done: false, tags: [], externalId: 'beta' },
    { title: 'Gamma', status: 'draft', accessGroups: ['sales'], extra: 'kept' },
  ]
  for (const seed of seeds) await createDocument(server, as.admin, 'books', seed)
  const original = await contents(server, as.admin, 'books')

  for (const format of ['ndjson', 'json', 'csv'] as const) {
    const exported = await exportOf(server, as.admin, 'books', { format })
    t.equal(exported.statusCode, 200, exported.body)
    t.equal(exported.headers['content-type'], `${TYPES[format]}; charset=utf-8`)
    t.equal(
      exported.headers['content-disposition'],
      `attachment; filename="books.${format}"; filename*=UTF-8''books.${format}`,
    )
    t.equal(exported.headers['x-content-type-options'], 'nosniff')
    t.notMatch(exported.body, /_permissions/, 'the caller-computed permissions are not exported')

    const name = `copy-${format}`
    await createDefinition(server, as.admin, { name, fields: FIELDS })
    const imported = await importInto(server, as.admin, name, format, exported.body)
    t.equal(imported.statusCode, 200, imported.body)
    t.same(imported.json(), { status: 'ok', data: { created: 3, failed: 0, errors: [] } }, format)
    // CSV holds the declared fields and the first columns only: `extra` stays behind.
    const expected = format === 'csv' ? original.map(({ extra: _extra, ...kept }) => kept) : original
    t.same(await contents(server, as.admin, name), expected, `${format} round trip`)
  }

  const ndjson = (await exportOf(server, as.admin, 'books')).body
  t.equal(ndjson.trimEnd().split('\n').length, 3, 'ndjson is the default, one document a line')
  const csv = parse((await exportOf(server, as.admin, 'books', { format: 'csv' })).body) as string[][]
  t.same(csv[0], ['_id', 'externalId', 'status', 'accessGroups', 'title', 'price', 'done', 'tags', 'place'])
  t.same(csv[1]?.slice(4), ['Alpha', '12.5', 'true', '["a","b"]', '{"longitude":1,"latitude":2}'])
})

t.test('export pages through every document by keyset, with the query, sort and fields of the list', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'items', fields: { n: { type: 'number' } } })
  const operations = Array.from({ length: 450 }, (_, n) => ({ op: 'create', body: { n, title: `item ${n}` } }))
  const bulk = await server.inject({
    method: 'POST',
    url: `${documentsOf('items')}/bulk`,
    headers: as.admin,
    payload: { operations },
  })
  t.equal(bulk.statusCode, 200)

  const all = await exportOf(server, as.admin, 'items', { sort: '{"n":-1}' })
  const numbers = all.body
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { n: number }).n)
  t.same(
    numbers,
    Array.from({ length: 450 }, (_, n) => 449 - n),
    'every document once, in the sort asked for',
  )

  const some = await exportOf(server, as.admin, 'items', {
    format: 'json',
    query: '{"n":{"$gte":100,"$lt":350}}',
    sort: '{"n":1}',
    fields: '{"n":1}',
  })
  const items = some.json() as { _id: string; n: number; title?: string }[]
  t.equal(items.length, 250)
  t.same([items[0]?.n, items.at(-1)?.n], [100, 349])
  t.notOk(
    items.some((item) => 'title' in item),
    'only the fields asked for',
  )
  const csv = parse((await exportOf(server, as.admin, 'items', { format: 'csv', fields: '{"n":1}' })).body)
  t.same((csv as string[][])[0], ['_id', 'n'], 'a CSV of the fields asked for')

  const empty = await exportOf(server, as.admin, 'items', { format: 'json', query: '{"n":-1}' })
  t.same(empty.json(), [])
  const emptyCsv = await exportOf(server, as.admin, 'items', { format: 'csv', query: '{"n":-1}' })
  t.equal(emptyCsv.body, '_id,externalId,status,accessGroups,n\r\n', 'a header row even without documents')

  const refusals: Record<string, string>[] = [{ query: '{"$where":"1"}' }, { sort: 'nope' }, { fields: '[1]' }]
  for (const query of refusals) {
    const refused = await exportOf(server, as.admin, 'items', query)
    t.equal(refused.statusCode, 400, JSON.stringify(query))
    t.equal(refused.json().error, 'invalid_query')
  }
  const format = await exportOf(server, as.admin, 'items', { format: 'xml' })
  t.equal(format.statusCode, 400)
  t.equal(format.json().error, 'validation_error')
})

t.test('a member exports only the documents it could list', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'notes' })
  await createDocument(server, as.admin, 'notes', { title: 'open' })
  await createDocument(server, as.admin, 'notes', { title: 'sales only', accessGroups: ['sales'] })
  await createDocument(server, as.admin, 'notes', { title: 'hr only', accessGroups: ['hr'] })
  const titles = async (headers: Record<string, string>) =>
    (
      (await exportOf(server, headers, 'notes', { format: 'json', sort: '{"title":1}' })).json() as { title: string }[]
    ).map((note) => note.title)
  t.same(await titles(as.admin), ['hr only', 'open', 'sales only'])
  t.same(await titles(as.sales), ['open', 'sales only'])
  t.same(await titles(as.member), ['open'])
  const csv = parse((await exportOf(server, as.member, 'notes', { format: 'csv' })).body) as string[][]
  t.same(
    csv.map((row) => row.at(-1)),
    ['title', 'open'],
    'without declared fields the columns come from the documents',
  )

  // A member imports only into groups it belongs to.
  const imported = await importInto(
    server,
    as.sales,
    'notes',
    'ndjson',
    '{"title":"mine","accessGroups":["sales"]}\n{"title":"theirs","accessGroups":["hr"]}\n',
  )
  t.equal(imported.statusCode, 200)
  t.match(imported.json().data, { created: 1, failed: 1, errors: [{ row: 2, code: 'forbidden' }] })
})

t.test('each record that cannot be a document is counted and named; the others are created', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, {
    name: 'books',
    fields: FIELDS,
    indexes: [{ fields: { title: 1 }, unique: true }],
  })
  const stored = storedDocuments(resources.store, definition._id)

  const csv = [
    'title,price,done,tags,externalId',
    'ok one,1,yes,"[""x""]",e1',
    'bad price,abc,,,',
    ',2,,,',
    'bad bool,3,maybe,,',
    'bad json,4,,[oops,',
    'too,many,cells,,,,',
    'dup external,5,,,e1',
    'ok one,6,,,',
    'ok two,,no,,',
  ].join('\r\n')
  const imported = await importInto(server, as.admin, 'books', 'csv', csv)
  t.equal(imported.statusCode, 200, imported.body)
  const summary = imported.json().data
  t.match(summary, {
    created: 2,
    failed: 7,
    errors: [
      { row: 2, code: 'validation_error', description: /column price: "abc" is not a number/ },
      { row: 3, code: 'validation_error', description: /title/ },
      { row: 4, code: 'validation_error', description: /column done: "maybe" is not true or false/ },
      { row: 5, code: 'validation_error', description: /column tags: .* not valid JSON/ },
      { row: 6, code: 'validation_error', description: '7 cells where the header has 5' },
      { row: 7, code: 'duplicate_external_id', description: /e1/ },
      { row: 8, code: 'duplicate_key', description: /unique index/ },
    ],
  })
  t.same(
    (await stored.find({}, { sort: { title: 1 } })).map((book) => [book.title, book.price, book.done, book.tags]),
    [
      ['ok one', 1, true, ['x']],
      ['ok two', undefined, false, undefined],
    ],
  )

  const ndjson = ['{"title":"n1"}', 'not json', '[1]', '', '{"title":7}', '{"title":"n2","$set":1}', '{"title":"n3"}']
  const lines = await importInto(server, as.admin, 'books', 'ndjson', ndjson.join('\n'))
  t.match(lines.json().data, {
    created: 2,
    failed: 4,
    errors: [
      { row: 2, description: 'not valid JSON' },
      { row: 3, description: 'not a JSON object' },
      { row: 4, description: /title/ },
      { row: 5, description: /\$set/ },
    ],
  })

  const items = '[{"title":"j1"}, {"price":1}, null, {"title":"p","__proto__":{"admin":true}}]'
  const json = await importInto(server, as.admin, 'books', 'json', items)
  t.match(json.json().data, {
    created: 1,
    failed: 3,
    errors: [{ row: 2 }, { row: 3, description: 'not a JSON object' }, { row: 4, description: /__proto__/ }],
  })
})

t.test('a file that cannot be read, or is over a limit, creates nothing', async (t) => {
  const { server, as, resources } = await build(t, {
    config: { QUIRE_IMPORT_BODY_LIMIT: 2048, QUIRE_IMPORT_MAX_ROWS: 5 },
  })
  const definition = await createDefinition(server, as.admin, { name: 'books' })
  const stored = storedDocuments(resources.store, definition._id)
  const refusals: [keyof typeof TYPES, string, number, string, RegExp][] = [
    ['csv', 'title\n"unclosed\n', 400, 'validation_error', /not valid CSV/],
    ['csv', '', 400, 'validation_error', /header row/],
    ['csv', 'title,title\na,b\n', 400, 'validation_error', /"title" appears twice/],
    ['csv', 'title,a.b\na,b\n', 400, 'validation_error', /"a.b" is not a field name/],
    ['csv', 'title,__proto__\na,b\n', 400, 'validation_error', /"__proto__" is not a field name/],
    ['json', '{"title":"x"}', 400, 'validation_error', /array of objects/],
    ['json', '[{"title":"x"}, {"title":', 400, 'validation_error', /not valid JSON/],
    [
      'ndjson',
      Array.from({ length: 6 }, (_, n) => `{"n":${n}}`).join('\n'),
      400,
      'validation_error',
      /more than 5 records/,
    ],
    ['ndjson', `{"title":"${'x'.repeat(3000)}"}`, 413, 'payload_too_large', /limit of 2048 bytes/],
  ]
  for (const [format, payload, status, code, description] of refusals) {
    const refused = await importInto(server, as.admin, 'books', format, payload)
    t.equal(refused.statusCode, status, `${format}: ${payload.slice(0, 30)}`)
    t.match(refused.json(), { status: 'error', error: code, description })
  }
  const chunked = await server.inject({
    method: 'POST',
    url: `${documentsOf('books')}/import`,
    headers: { ...as.admin, 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' },
    payload: `{"title":"${'x'.repeat(3000)}"}`,
  })
  t.equal(chunked.statusCode, 413, 'a body without a length is counted as it arrives')
  const media = await server.inject({
    method: 'POST',
    url: `${documentsOf('books')}/import`,
    headers: { ...as.admin, 'content-type': 'application/xml' },
    payload: '<books/>',
  })
  t.equal(media.statusCode, 415)
  t.equal(media.json().error, 'unsupported_media_type')
  const none = await server.inject({ method: 'POST', url: `${documentsOf('books')}/import`, headers: as.admin })
  t.equal(none.statusCode, 415)
  t.equal(await stored.count({}), 0)
})

t.test('CSV cells a spreadsheet would run as formulas are neutralised, and imported back as they were', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'cells',
    fields: { title: { type: 'string' }, n: { type: 'number' } },
  })
  const titles = ['=HYPERLINK("http://evil","x")', '+1+1', '-2+3', '@SUM(A1)', '\tTab', '\rCR', "'quoted", 'plain']
  for (const [n, title] of titles.entries()) await createDocument(server, as.admin, 'cells', { title, n: -n })
  const exported = await exportOf(server, as.admin, 'cells', { format: 'csv', fields: '{"title":1,"n":1}' })
  const rows = (parse(exported.body) as string[][]).slice(1)
  t.same(
    rows.map((row) => row[1]),
    titles.map((title) => (title === 'plain' ? title : `'${title}`)),
  )
  t.same(
    rows.map((row) => row[2]),
    titles.map((_, n) => String(-n)),
    'numbers stay numbers',
  )
  for (const row of rows) t.notMatch(row[1] ?? '', /^[=+\-@\t\r]/)

  await createDefinition(server, as.admin, {
    name: 'back',
    fields: { title: { type: 'string' }, n: { type: 'number' } },
  })
  t.match((await importInto(server, as.admin, 'back', 'csv', exported.body)).json().data, { created: titles.length })
  const back = await exportOf(server, as.admin, 'back', { format: 'json', sort: '{"n":-1}' })
  t.same(
    (back.json() as { title: string; n: number }[]).map((cell) => [cell.title, cell.n]),
    titles.map((title, n) => [title, -n]),
  )
})

t.test('an Idempotency-Key replays an import instead of creating its documents again', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'books', fields: FIELDS })
  const stored = storedDocuments(resources.store, definition._id)
  const body = Array.from({ length: 150 }, (_, n) => JSON.stringify(n === 7 ? { price: 1 } : { title: `b${n}` })).join(
    '\n',
  )
  const key = { 'idempotency-key': 'import-1' }
  const first = await importInto(server, as.admin, 'books', 'ndjson', body, key)
  t.equal(first.statusCode, 200)
  t.notOk(first.headers['idempotent-replayed'])
  t.match(first.json().data, { created: 149, failed: 1, errors: [{ row: 8 }] })
  const again = await importInto(server, as.admin, 'books', 'ndjson', body, key)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.same(again.json().data, first.json().data)
  t.equal(await stored.count({}), 149)
  const other = await importInto(server, as.admin, 'books', 'ndjson', body.replace('b0', 'c0'), key)
  t.equal(other.statusCode, 422)
  t.equal(other.json().error, 'validation_error')
  t.equal(await stored.count({}), 149)
})

t.test('environments stay apart; strangers and outsiders are refused', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'books' })
  await createDocument(server, as.admin, 'books', { title: 'A only' })
  const stored = storedDocuments(resources.store, definition._id)

  const fromB = await exportOf(server, as.adminB, 'books')
  t.equal(fromB.statusCode, 404)
  t.equal(fromB.json().error, 'document_definition_not_found_for_id_or_name')
  const byIdFromB = await exportOf(server, as.adminB, definition._id)
  t.equal(byIdFromB.statusCode, 404, 'not by id either')
  const intoFromB = await importInto(server, as.adminB, definition._id, 'ndjson', '{"title":"from B"}')
  t.equal(intoFromB.statusCode, 404)

  const outsider = await exportOf(server, as.outsider, 'books')
  t.equal(outsider.statusCode, 403)
  t.equal((await importInto(server, as.outsider, 'books', 'ndjson', '{"title":"x"}')).statusCode, 403)
  const stranger = await exportOf(server, { 'environment-id': 'env_a' }, 'books')
  t.equal(stranger.statusCode, 401)
  const anonymous = await importInto(server, { 'environment-id': 'env_a' }, 'books', 'ndjson', '{"title":"x"}')
  t.equal(anonymous.statusCode, 401)
  t.equal(await stored.count({}), 1)
})
