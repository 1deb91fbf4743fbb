import t from 'tap'
import type { Attachment } from '@quire/contracts'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import { ADAPTERS, build, createDefinition, createDocument, documentsOf, getDocument } from '../helper.js'
import { attachmentsOf, storedObjects, upload } from '../attachments-helper.js'

const COPY = '/api/v2/documents/copyAttachments'
const names = (attachments: Attachment[]) => attachments.map((attachment) => attachment._fileName)

for (const adapter of ADAPTERS) {
  t.test(`${adapter} adapter`, async (t) => {
    t.test('copies every file, or the named ones, across definitions and within a document', async (t) => {
      const world = await build(t, { adapter })
      const { server, as } = world
      await createDefinition(server, as.admin, { name: 'orders' })
      await createDefinition(server, as.admin, { name: 'invoices' })
      const order = await createDocument(server, as.member, 'orders', { externalId: 'order-1' })
      const invoice = await createDocument(server, as.member, 'invoices', { externalId: 'invoice-1' })
      const saved = await upload(server, as.member, 'orders', order._id, 'valuePath=scans', [
        { name: 'a.txt', content: 'alpha' },
        { name: 'b.txt', content: 'beta' },
        { name: 'c.txt', content: 'gamma' },
      ])
      const [a, b, c] = saved.json().data.attachments as [Attachment, Attachment, Attachment]

      const response = await server.inject({
        method: 'POST',
        url: COPY,
        headers: as.member,
        payload: [
          {
            source: { ddName: 'orders', _id: order._id, valuePath: 'scans' },
            target: { ddName: 'invoices', externalId: 'invoice-1', valuePath: 'all' },
          },
          {
            source: { ddName: 'orders', externalId: 'order-1', valuePath: 'scans', fileNames: ['b.txt'] },
            target: { ddName: 'invoices', _id: invoice._id, valuePath: 'some.0.files' },
          },
          {
            source: { ddName: 'orders', _id: order._id, valuePath: 'scans', fileIds: [c._id] },
            target: { ddName: 'invoices', _id: invoice._id, valuePath: 'some.0.files' },
          },
          {
            source: { ddName: 'orders', _id: order._id, valuePath: 'scans', fileIds: [a._id] },
            target: { ddName: 'orders', _id: order._id, valuePath: 'backup' },
          },
        ],
      })
      t.equal(response.statusCode, 200)
      const { status, data } = response.json()
      t.equal(status, 'ok')
      t.equal(data.length, 4)
      t.match(data[0], {
        source: { ddName: 'orders', _id: order._id, valuePath: 'scans' },
        target: { ddName: 'invoices', _id: invoice._id, externalId: 'invoice-1', valuePath: 'all' },
      })
      t.same(names(data[0].attachments), ['a.txt', 'b.txt', 'c.txt'])
      t.same(names(data[1].attachments), ['b.txt'])
      t.same(names(data[2].attachments), ['c.txt'])
      const copy = data[0].attachments[0] as Attachment
      t.not(copy._id, a._id, 'copies get new ids')
      t.match(copy, { _fileName: 'a.txt', _size: 5, _contentType: 'text/plain', _sha256: a._sha256, store: 'file' })

      const target = await getDocument(server, as.member, 'invoices', invoice._id)
      t.same(target.all, data[0].attachments)
      t.same(
        target.some,
        [{ files: [...data[1].attachments, ...data[2].attachments] }],
        'appended at the target path, created on the way',
      )
      const source = await getDocument(server, as.member, 'orders', order._id)
      t.same(source.scans, [a, b, c], 'the source keeps its files')
      t.same(names(source.backup as Attachment[]), ['a.txt'], 'a copy within one document')

      const bytes = await server.inject({
        method: 'GET',
        url: `${attachmentsOf('invoices', invoice._id)}/${data[2].attachments[0]._id}`,
        headers: as.member,
      })
      t.equal(bytes.body, 'gamma', 'the copied bytes are there')

      // A copy shares the stored file: removing the original leaves it.
      await server.inject({
        method: 'DELETE',
        url: `${attachmentsOf('orders', order._id)}/${a._id}`,
        headers: as.member,
      })
      t.equal(
        (
          await server.inject({
            method: 'GET',
            url: `${attachmentsOf('invoices', invoice._id)}/${copy._id}`,
            headers: as.member,
          })
        ).body,
        'alpha',
      )
    })

    t.test(
      'a failing item stops the call, names its index, leaves the ones before done and nothing of its own',
      async (t) => {
        const world = await build(t, { adapter })
        const { server, as } = world
        await createDefinition(server, as.admin, { name: 'orders' })
        await createDefinition(server, as.adminB, { name: 'vault' })
        const order = await createDocument(server, as.member, 'orders')
        const other = await createDocument(server, as.member, 'orders')
        const outside = await createDocument(server, as.adminB, 'vault')
        await upload(server, as.member, 'orders', order._id, 'valuePath=scans', [{ name: 'a.txt', content: 'alpha' }])
        const item = (target: Record<string, string>, source: Record<string, unknown> = {}) => ({
          source: { ddName: 'orders', _id: order._id, valuePath: 'scans', ...source },
          target: { ddName: 'orders', _id: other._id, valuePath: 'copies', ...target },
        })
        const copy = (payload: object[]) => server.inject({ method: 'POST', url: COPY, headers: as.member, payload })

        const stored = await storedObjects(world)
        const refused = await copy([item({}), item({ ddName: 'vault', _id: outside._id })])
        t.equal(refused.statusCode, 404, 'a document of another environment cannot be reached')
        t.match(refused.json(), {
          error: 'document_definition_not_found_for_id_or_name',
          description: /^item 1: .*items 0 to 0 were copied/,
        })
        t.equal(
          ((await getDocument(server, as.member, 'orders', other._id)).copies as Attachment[]).length,
          1,
          'item 0 stays done',
        )
        t.same(await storedObjects(world), stored, 'a copy stores no file: it shares the source')
        t.notOk('copies' in (await getDocument(server, as.adminB, 'vault', outside._id)))

        const cases: Array<[string, object[], number, string]> = [
          ['unknown file name', [item({}, { fileNames: ['nope.txt'] })], 404, 'attachment_not_found'],
          ['unknown file id', [item({}, { fileIds: ['000000000000000000000000'] })], 404, 'attachment_not_found'],
          ['bad target path', [item({ valuePath: 'copies.__proto__' })], 400, 'invalid_value_path'],
          [
            'no document reference',
            [{ source: { ddName: 'orders', valuePath: 'scans' }, target: item({}).target }],
            400,
            'validation_error',
          ],
          ['unknown document', [item({ _id: 'nope' })], 404, 'document_not_found'],
          ['empty body', [], 400, 'validation_error'],
          ['too many items', Array.from({ length: 101 }, () => item({})), 400, 'validation_error'],
        ]
        for (const [name, payload, status, error] of cases) {
          const response = await copy(payload)
          t.equal(response.statusCode, status, name)
          t.equal(response.json().error, error, name)
        }
        t.same(await storedObjects(world), stored, 'failed items leave no file behind')
        t.equal(
          await DOCUMENTS_COLLECTIONS.attachmentFiles.in(world.resources.store).count({}),
          2,
          'nor a reference: the original and item 0',
        )

        const hidden = await createDocument(server, as.admin, 'orders', { accessGroups: ['sales'] })
        const noRead = await copy([
          { source: { ddName: 'orders', _id: hidden._id, valuePath: 'scans' }, target: item({}).target },
        ])
        t.equal(noRead.statusCode, 404, 'a source the caller cannot read')
        const noWrite = await copy([item({ _id: hidden._id })])
        t.equal(noWrite.statusCode, 404, 'a target the caller cannot write')
        t.match(noWrite.json(), { error: 'document_not_found', description: /^item 0: .*no item was copied/ })
      },
    )

    t.test('copies share the stored file, counted: it goes with its last reference', async (t) => {
      const world = await build(t, { adapter })
      const { server, as, resources } = world
      await createDefinition(server, as.admin, { name: 'orders' })
      await createDefinition(server, as.admin, { name: 'invoices' })
      const order = await createDocument(server, as.member, 'orders')
      const invoice = await createDocument(server, as.member, 'invoices')
      const before = await storedObjects(world)
      const saved = await upload(server, as.member, 'orders', order._id, 'valuePath=scans', [
        { name: 'a.txt', content: 'alpha' },
      ])
      const [original] = saved.json().data.attachments as [Attachment]
      const withFile = await storedObjects(world)
      t.equal(withFile.length, before.length + 1)
      const copy = (target: { ddName: string; _id: string; valuePath: string }) =>
        server.inject({
          method: 'POST',
          url: COPY,
          headers: as.member,
          payload: [{ source: { ddName: 'orders', _id: order._id, valuePath: 'scans' }, target }],
        })
      const first = await copy({ ddName: 'invoices', _id: invoice._id, valuePath: 'files' })
      const second = await copy({ ddName: 'orders', _id: order._id, valuePath: 'backup' })
      t.equal(first.statusCode, 200)
      t.equal(second.statusCode, 200)
      t.same(await storedObjects(world), withFile, 'no byte copied')
      const [copied] = first.json().data[0].attachments as [Attachment]
      const download = (ddName: string, id: string, attachmentId: string) =>
        server.inject({ method: 'GET', url: `${attachmentsOf(ddName, id)}/${attachmentId}`, headers: as.member })

      // The source document goes (its own attachment and the copy inside it): the other copy still downloads.
      const removed = await server.inject({
        method: 'DELETE',
        url: `${documentsOf('orders')}/${order._id}`,
        headers: as.member,
      })
      t.equal(removed.statusCode, 200)
      const stillThere = await download('invoices', invoice._id, copied._id)
      t.equal(stillThere.statusCode, 200)
      t.equal(stillThere.body, 'alpha')
      t.equal(stillThere.headers['content-length'], '5')
      t.same(await storedObjects(world), withFile)
      t.equal(await DOCUMENTS_COLLECTIONS.sharedFiles.in(resources.store).count({}), 0, 'one reference: no count')

      // The last reference goes: so does the file.
      const last = await server.inject({
        method: 'DELETE',
        url: `${attachmentsOf('invoices', invoice._id)}/${copied._id}`,
        headers: as.member,
      })
      t.equal(last.statusCode, 200)
      t.same(await storedObjects(world), before, 'the file left the file store')
      t.equal(await DOCUMENTS_COLLECTIONS.attachmentFiles.in(resources.store).count({}), 0)
      t.equal((await download('invoices', invoice._id, copied._id)).statusCode, 404)
      t.equal(original.store, 'file')
    })

    t.test('one call copies at most 1000 files', async (t) => {
      const world = await build(t, { adapter, config: { QUIRE_MAX_FILES: 11 } })
      const { server, as } = world
      await createDefinition(server, as.admin, { name: 'orders' })
      const order = await createDocument(server, as.member, 'orders')
      await upload(
        server,
        as.member,
        'orders',
        order._id,
        'valuePath=scans',
        Array.from({ length: 11 }, (_, index) => ({ name: `${index}.txt`, content: 'x' })),
      )
      const item = {
        source: { ddName: 'orders', _id: order._id, valuePath: 'scans' },
        target: { ddName: 'orders', _id: order._id, valuePath: 'copies' },
      }
      const response = await server.inject({
        method: 'POST',
        url: COPY,
        headers: as.member,
        payload: Array.from({ length: 100 }, () => item),
      })
      t.equal(response.statusCode, 413)
      t.match(response.json(), {
        status: 'error',
        error: 'payload_too_large',
        description: /^item 90: More than 1000 files .*items 0 to 89 were copied/,
      })
      const copies = (await getDocument(server, as.member, 'orders', order._id)).copies as Attachment[]
      t.equal(copies.length, 990)
    })
  })
}
