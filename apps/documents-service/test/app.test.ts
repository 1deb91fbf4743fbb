import t from 'tap'
import { build, createDefinition, DEFINITIONS, documentsOf } from './helper.js'

t.test('environment A never sees B: definitions and documents by id, name, externalId or filter', async (t) => {
  const { server, as } = await build(t)
  const definitionB = await createDefinition(server, as.adminB, { name: 'secrets' })
  const documentB = (
    await server.inject({
      method: 'POST',
      url: `${documentsOf('secrets')}/new`,
      headers: as.adminB,
      payload: { externalId: 'X1', code: 42 },
    })
  ).json().data

  for (const ddId of [definitionB._id, 'secrets']) {
    const definition = await server.inject({ method: 'GET', url: `${DEFINITIONS}/${ddId}`, headers: as.admin })
    t.equal(definition.statusCode, 404, `definition ${ddId}`)
    t.equal(definition.json().error, 'document_definition_not_found_for_id_or_name')
    t.match(definition.json().description, /environment "env_a"/)
    for (const id of [documentB._id, 'X1']) {
      const document = await server.inject({ method: 'GET', url: `${documentsOf(ddId)}/${id}`, headers: as.admin })
      t.equal(document.statusCode, 404, `document ${id} under ${ddId}`)
    }
    const writes = [
      await server.inject({
        method: 'PATCH',
        url: `${documentsOf(ddId)}/${documentB._id}`,
        headers: as.admin,
        payload: { code: 0 },
      }),
      await server.inject({ method: 'DELETE', url: `${documentsOf(ddId)}/${documentB._id}`, headers: as.admin }),
      await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/${ddId}?force=true`, headers: as.admin }),
      await server.inject({ method: 'POST', url: `${DEFINITIONS}?sourceId=${ddId}`, headers: as.admin, payload: {} }),
    ]
    t.same(
      writes.map((response) => response.statusCode),
      [404, 404, 404, 404],
    )
  }
  t.same((await server.inject({ method: 'GET', url: DEFINITIONS, headers: as.admin })).json().data, [])

  // A's own definition of the same name holds nothing of B's, whatever the filter.
  await createDefinition(server, as.admin, { name: 'secrets' })
  for (const query of [{}, { code: 42 }, { _environmentId: 'env_b' }, { externalId: 'X1' }, { _id: documentB._id }]) {
    const list = await server.inject({
      method: 'GET',
      url: `${documentsOf('secrets')}?query=${encodeURIComponent(JSON.stringify(query))}`,
      headers: as.admin,
    })
    t.same(list.json().data, [], JSON.stringify(query))
  }
  t.equal(
    (await server.inject({ method: 'GET', url: `${documentsOf('secrets')}/X1`, headers: as.admin })).statusCode,
    404,
  )
  t.equal(
    (
      await server.inject({
        method: 'GET',
        // Under the `_id` order an `_id` is only a place (any is accepted); under another sort it is read.
        url: `${documentsOf('secrets')}?after=${documentB._id}&sort=${encodeURIComponent('{"name":1}')}`,
        headers: as.admin,
      })
    ).statusCode,
    400,
  )
  const reused = await server.inject({
    method: 'POST',
    url: `${documentsOf('secrets')}/new`,
    headers: as.admin,
    payload: { externalId: 'X1' },
  })
  t.equal(reused.statusCode, 201, "B's externalId is free in A")

  const stillThere = await server.inject({ method: 'GET', url: `${documentsOf('secrets')}/X1`, headers: as.adminB })
  t.equal(stillThere.json().code, 42, 'B is untouched')
})

t.test('signed-in callers are limited per user when QUIRE_CALLER_RATE_LIMIT_PER_MINUTE is set', async (t) => {
  const { server, as } = await build(t, { config: { QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: 3 } })
  const list = (headers: Record<string, string>) => server.inject({ method: 'GET', url: DEFINITIONS, headers })
  for (let i = 0; i < 3; i++) t.equal((await list(as.member)).statusCode, 200)
  const limited = await list(as.member)
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error, 'rate_limited')
  t.ok(Number(limited.headers['retry-after']) > 0, 'with Retry-After')
  t.equal((await list(as.admin)).statusCode, 200, 'another user has a budget of its own')
})
