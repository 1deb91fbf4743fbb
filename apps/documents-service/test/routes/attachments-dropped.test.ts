import t from 'tap'
import type { Attachment } from '@quire/contracts'
import { attachmentsOf, storedObjects, upload } from '../attachments-helper.js'
import { build, createDefinition, createDocument, documentsOf, type Built } from '../helper.js'

const COPY = '/api/v2/documents/copyAttachments'

/** A document of `ddId` holding the uploads at `valuePath`; the attachments as the upload answered them. */
async function withFiles(world: Built, ddId: string, valuePath: string, names: string[]) {
  const { server, as } = world
  const document = await createDocument(server, as.member, ddId, { title: 'x' })
  const uploads = names.map((name) => ({ name, content: `content of ${name}` }))
  const answer = await upload(server, as.member, ddId, document._id, `valuePath=${valuePath}`, uploads)
  if (answer.statusCode !== 201) throw new Error(`files not saved: ${answer.body}`)
  return { id: document._id as string, attachments: answer.json().data.attachments as Attachment[] }
}

const download = (world: Built, ddId: string, id: string, attachment: Attachment) =>
  world.server.inject({ method: 'GET', url: `${attachmentsOf(ddId, id)}/${attachment._id}`, headers: world.as.member })

t.test('a PUT that drops an attachment field removes its files; the other fields keep theirs', async (t) => {
  const world = await build(t)
  const { server, as } = world
  await createDefinition(server, as.admin, { name: 'orders' })
  const order = await withFiles(world, 'orders', 'scans', ['a.txt', 'b.txt'])
  const [kept] = (
    await upload(server, as.member, 'orders', order.id, 'valuePath=photos', [{ name: 'p.txt', content: 'p' }])
  ).json().data.attachments as Attachment[]
  t.equal((await storedObjects(world)).length, 3)

  const current = (
    await server.inject({ method: 'GET', url: `${documentsOf('orders')}/${order.id}`, headers: as.member })
  ).json()
  const { scans: _dropped, ...rest } = current
  const put = await server.inject({
    method: 'PUT',
    url: `${documentsOf('orders')}/${order.id}`,
    headers: as.member,
    payload: rest,
  })
  t.equal(put.statusCode, 200)
  t.notOk('scans' in put.json().data, 'the field is gone')

  t.equal((await storedObjects(world)).length, 1, 'only the file still referred to is stored')
  t.equal((await download(world, 'orders', order.id, kept!)).body, 'p', 'the other field still serves its file')
})

t.test('a PATCH that replaces an attachment list removes the files it no longer holds', async (t) => {
  const world = await build(t)
  const { server, as } = world
  await createDefinition(server, as.admin, { name: 'orders' })
  const order = await withFiles(world, 'orders', 'scans', ['a.txt', 'b.txt', 'c.txt'])
  const [a, b, c] = order.attachments as [Attachment, Attachment, Attachment]

  const patch = await server.inject({
    method: 'PATCH',
    url: `${documentsOf('orders')}/${order.id}`,
    headers: as.member,
    payload: { scans: [b] },
  })
  t.equal(patch.statusCode, 200)
  t.same(
    (patch.json().data.scans as Attachment[]).map((attachment) => attachment._fileName),
    ['b.txt'],
  )
  t.equal((await storedObjects(world)).length, 1)
  t.equal((await download(world, 'orders', order.id, b)).body, 'content of b.txt')
  for (const gone of [a, c]) t.equal((await download(world, 'orders', order.id, gone)).statusCode, 404)

  // A bulk patch goes through the same write: the last file goes with its list.
  const bulk = await server.inject({
    method: 'POST',
    url: `${documentsOf('orders')}/bulk`,
    headers: as.member,
    payload: { operations: [{ op: 'patch', id: order.id, body: { scans: null } }] },
  })
  t.equal(bulk.statusCode, 200)
  t.same(await storedObjects(world), [])
})

t.test('a copied file stays while a document still refers to it, and goes with the last reference', async (t) => {
  const world = await build(t)
  const { server, as } = world
  await createDefinition(server, as.admin, { name: 'orders' })
  await createDefinition(server, as.admin, { name: 'invoices' })
  const order = await withFiles(world, 'orders', 'scans', ['a.txt'])
  const invoice = await createDocument(server, as.member, 'invoices', {})
  const copied = await server.inject({
    method: 'POST',
    url: COPY,
    headers: as.member,
    payload: [
      {
        source: { ddName: 'orders', _id: order.id, valuePath: 'scans' },
        target: { ddName: 'invoices', _id: invoice._id, valuePath: 'files' },
      },
    ],
  })
  t.equal(copied.statusCode, 200)
  const [copy] = copied.json().data[0].attachments as [Attachment]
  t.equal((await storedObjects(world)).length, 1, 'a copy shares the stored file')

  const dropOrder = await server.inject({
    method: 'PUT',
    url: `${documentsOf('orders')}/${order.id}`,
    headers: as.member,
    payload: { title: 'no files' },
  })
  t.equal(dropOrder.statusCode, 200)
  t.equal((await storedObjects(world)).length, 1, 'the invoice still refers to it')
  t.equal((await download(world, 'invoices', invoice._id, copy)).body, 'content of a.txt')

  const dropInvoice = await server.inject({
    method: 'PATCH',
    url: `${documentsOf('invoices')}/${invoice._id}`,
    headers: { ...as.member, 'content-type': 'application/merge-patch+json' },
    payload: JSON.stringify({ files: null }),
  })
  t.equal(dropInvoice.statusCode, 200)
  t.same(await storedObjects(world), [], 'gone with its last reference')
  t.equal((await download(world, 'invoices', invoice._id, copy)).statusCode, 404)
})

t.test('a write that keeps or moves its attachments keeps their files', async (t) => {
  const world = await build(t)
  const { server, as } = world
  await createDefinition(server, as.admin, { name: 'orders' })
  const order = await withFiles(world, 'orders', 'scans', ['a.txt'])
  const [a] = order.attachments as [Attachment]
  const moved = await server.inject({
    method: 'PUT',
    url: `${documentsOf('orders')}/${order.id}`,
    headers: as.member,
    payload: { title: 'moved', archive: { scans: [a] } },
  })
  t.equal(moved.statusCode, 200)
  const renamed = await server.inject({
    method: 'PATCH',
    url: `${documentsOf('orders')}/${order.id}`,
    headers: as.member,
    payload: { title: 'renamed' },
  })
  t.equal(renamed.statusCode, 200)
  t.equal((await storedObjects(world)).length, 1)
  t.equal((await download(world, 'orders', order.id, a)).body, 'content of a.txt')
})

t.test('a member who writes back a dropped attachment’s metadata cannot take a shared file from a copy', async (t) => {
  const world = await build(t)
  const { server, as } = world
  await createDefinition(server, as.admin, { name: 'orders' })
  await createDefinition(server, as.admin, { name: 'invoices' })
  const order = await withFiles(world, 'orders', 'scans', ['a.txt'])
  const [original] = order.attachments as [Attachment]
  const copies: Attachment[] = []
  for (let index = 0; index < 2; index++) {
    const invoice = await createDocument(server, as.admin, 'invoices', { accessGroups: ['sales'] })
    const copied = await server.inject({
      method: 'POST',
      url: COPY,
      headers: as.admin,
      payload: [
        {
          source: { ddName: 'orders', _id: order.id, valuePath: 'scans' },
          target: { ddName: 'invoices', _id: invoice._id, valuePath: 'files' },
        },
      ],
    })
    t.equal(copied.statusCode, 200)
    copies.push({ ...copied.json().data[0].attachments[0], documentId: invoice._id } as Attachment)
  }
  const url = `${documentsOf('orders')}/${order.id}`
  const write = (payload: Record<string, unknown>) => server.inject({ method: 'PUT', url, headers: as.member, payload })
  t.equal((await write({ title: 'dropped' })).statusCode, 200)
  // The member puts the metadata back (a forged attachment) and drops it again, twice.
  for (let round = 0; round < 2; round++) {
    t.equal((await write({ title: 'forged', scans: [original] })).statusCode, 200)
    t.equal((await write({ title: 'dropped again' })).statusCode, 200)
  }
  for (const copy of copies) {
    const documentId = (copy as Attachment & { documentId: string }).documentId
    const answer = await server.inject({
      method: 'GET',
      url: `${attachmentsOf('invoices', documentId)}/${copy._id}`,
      headers: as.admin,
    })
    t.equal(answer.body, 'content of a.txt', 'the copies the member cannot see still serve the file')
  }
  t.equal((await storedObjects(world)).length, 1)
})
