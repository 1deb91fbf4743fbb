import t from 'tap'
import { storedHash } from '../../src/lib/stored-text.js'
import { build, createDefinition, documentsOf, storedDocuments } from '../helper.js'

t.test('every write of a document stores `_hash` last, where GET one reads it (lib/stored-text.ts)', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const core = documentsOf('orders')
  const checkStored = async (id: string, hash: string, write: string) => {
    const json = (await storedDocuments(resources.store, definition._id).findText({ _id: id }))[0]?.json ?? ''
    t.ok(json.endsWith(`,"_hash":"${hash}"}`), `${write}: the stored text ends with its _hash`)
    t.equal(storedHash(json), hash, `${write}: read from the text's end`)
  }
  const creates = [
    { payload: { title: 'x', _hash: 'forged', zz: 1 }, headers: as.member },
    { payload: { title: 'y' }, headers: { ...as.member, 'idempotency-key': 'k' } },
  ]
  for (const [index, { payload, headers }] of creates.entries()) {
    const created = (await server.inject({ method: 'POST', url: `${core}/new`, headers, payload })).json().data
    await checkStored(created._id, created._hash, `create ${index}`)
    for (const [method, body] of [
      ['PUT', { title: 'z', zz: 2 }],
      ['PATCH', { extra: 'added', title: null }],
    ] as const) {
      const answer = await server.inject({ method, url: `${core}/${created._id}`, headers, payload: body })
      t.equal(answer.statusCode, 200)
      await checkStored(created._id, answer.json().data._hash, `${method} after create ${index}`)
    }
  }
})
