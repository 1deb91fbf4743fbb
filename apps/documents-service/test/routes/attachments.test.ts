import { createHash } from 'node:crypto'
import { text } from 'node:stream/consumers'
import t from 'tap'
import type { Attachment } from '@quire/contracts'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import {
  ADAPTERS,
  ENV_A,
  build,
  createDefinition,
  createDocument,
  documentsOf,
  getDocument,
  storedDocuments,
  type Built,
} from '../helper.js'
import { attachmentsOf, filesUnder, form, storedObjects, keyOf, pngHeader, upload } from '../attachments-helper.js'

const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex')

/** What the store holds under an attachment's key, as text; `null` when nothing. */
async function stored(
  world: Built,
  definitionId: string,
  documentId: string,
  attachment: Attachment,
): Promise<string | null> {
  const key = keyOf(ENV_A, definitionId, documentId, attachment)
  if (!(await world.files.exists(key))) return null
  return text((await world.files.get(key)).stream)
}

for (const adapter of ADAPTERS) {
  t.test(`${adapter} adapter`, async (t) => {
    t.test('several files in one call: metadata at a nested path, bytes in the store, a new _hash', async (t) => {
      const world = await build(t, { adapter })
      const { server, as } = world
      const definition = await createDefinition(server, as.admin, { name: 'orders' })
      const document = await createDocument(server, as.member, 'orders', { title: 'first', details: { note: 'kept' } })

      const response = await upload(server, as.member, 'orders', document._id, 'valuePath=details.files', [
        { name: 'notes.txt', content: 'hello world' },
        { name: 'empty.bin', content: '', type: 'application/octet-stream' },
        { name: 'Übersicht – 報告 ✓.txt', content: 'unicode' },
        { name: 'pixel.png', content: pngHeader(640, 480), type: 'image/png' },
      ])
      t.equal(response.statusCode, 201)
      const { status, data } = response.json()
      t.equal(status, 'ok')
      t.equal(data.attachments.length, 4)
      const [notes, empty, unicode, image] = data.attachments as [Attachment, Attachment, Attachment, Attachment]
      t.match(notes, {
        _id: /^[0-9a-f]{24}$/,
        _fileName: 'notes.txt',
        _size: 11,
        _contentType: 'text/plain',
        store: 'file',
        _sha256: sha256('hello world'),
        _createdOn: /Z$/,
        _createdByUserId: document._createdByUserId,
      })
      t.notOk('_width' in notes)
      t.match(empty, {
        _fileName: 'empty.bin',
        _size: 0,
        _contentType: 'application/octet-stream',
        _sha256: sha256(''),
      })
      t.equal(unicode._fileName, 'Übersicht – 報告 ✓.txt')
      t.match(image, { store: 'image', _width: 640, _height: 480, _contentType: 'image/png' })

      t.same(data.document.details, { note: 'kept', files: data.attachments }, 'written at the path, siblings kept')
      t.not(data.document._hash, document._hash)
      t.same(await getDocument(server, as.member, 'orders', document._id), data.document)
      t.equal(await stored(world, definition._id, document._id, notes), 'hello world')
      t.equal(await stored(world, definition._id, document._id, empty), '')
      t.equal(await stored(world, definition._id, document._id, unicode), 'unicode')
      t.same(await filesUnder(world.uploadDir), [], 'no spooled file left')
    })

    t.test('append by default, replace on request; replaced files leave the store', async (t) => {
      const world = await build(t, { adapter })
      const { server, as } = world
      const definition = await createDefinition(server, as.admin, { name: 'orders' })
      const document = await createDocument(server, as.member, 'orders')
      const first = (
        await upload(server, as.member, 'orders', document._id, 'valuePath=files', [{ name: 'a.txt', content: 'a' }])
      ).json().data
      const appended = await upload(server, as.member, 'orders', document._id, 'valuePath=files&actionType=append', [
        { name: 'b.txt', content: 'b' },
      ])
      t.equal(appended.statusCode, 201)
      const [a] = first.attachments as Attachment[]
      const [b] = appended.json().data.attachments as Attachment[]
      t.same(
        appended.json().data.document.files.map((file: Attachment) => file._fileName),
        ['a.txt', 'b.txt'],
      )

      const replaced = await upload(
        server,
        as.member,
        'orders',
        document._id,
        'valuePath=files&actionType=Replace',
        [{ name: 'c.txt', content: 'c' }],
        'PUT',
      )
      t.equal(replaced.statusCode, 201)
      const [c] = replaced.json().data.attachments as Attachment[]
      t.same(replaced.json().data.document.files, [c])
      t.equal(await stored(world, definition._id, document._id, a!), null, 'replaced files are removed')
      t.equal(await stored(world, definition._id, document._id, b!), null)
      t.equal(await stored(world, definition._id, document._id, c!), 'c')

      const lower = await upload(server, as.member, 'orders', document._id, 'valuePath=files&actionType=replace', [
        { name: 'd.txt', content: 'd' },
      ])
      t.same(
        lower.json().data.document.files.map((file: Attachment) => file._fileName),
        ['d.txt'],
        'actionType is case-insensitive',
      )
      const unknown = await upload(server, as.member, 'orders', document._id, 'valuePath=files&actionType=merge', [
        { name: 'e.txt', content: 'e' },
      ])
      t.equal(unknown.statusCode, 400)
      t.equal(unknown.json().error, 'validation_error')
    })

    t.test('shouldUpdateDocument=false stores the files and only returns their metadata', async (t) => {
      const world = await build(t, { adapter })
      const { server, as } = world
      const definition = await createDefinition(server, as.admin, { name: 'orders' })
      const document = await createDocument(server, as.member, 'orders')
      const response = await upload(
        server,
        as.member,
        'orders',
        document._id,
        'valuePath=files&shouldUpdateDocument=false',
        [{ name: 'a.txt', content: 'a' }],
      )
      t.equal(response.statusCode, 201)
      const { attachments, document: updated } = response.json().data
      t.equal(updated, undefined)
      t.equal(attachments.length, 1)
      const after = await getDocument(server, as.member, 'orders', document._id)
      t.equal(after._hash, document._hash, 'the document is untouched')
      t.notOk('files' in after)
      t.equal(await stored(world, definition._id, document._id, attachments[0]), 'a')

      // Such files still go with their document.
      await server.inject({ method: 'DELETE', url: `${documentsOf('orders')}/${document._id}`, headers: as.member })
      t.equal(await stored(world, definition._id, document._id, attachments[0]), null)
    })

    t.test('value paths: arrays by index, slots created where unambiguous, 400 otherwise', async (t) => {
      const world = await build(t, { adapter })
      const { server, as } = world
      await createDefinition(server, as.admin, { name: 'orders' })
      const document = await createDocument(server, as.member, 'orders', {
        title: 'x',
        tags: ['a'],
        list: [{ name: 'first' }],
      })
      const put = (valuePath: string) =>
        upload(server, as.member, 'orders', document._id, `valuePath=${encodeURIComponent(valuePath)}`, [
          { name: 'f.txt', content: 'f' },
        ])

      const intoItem = await put('list.0.files')
      t.equal(intoItem.statusCode, 201)
      t.match(intoItem.json().data.document.list, [{ name: 'first', files: [{ _fileName: 'f.txt' }] }])
      const newSlot = await put('list.1.files')
      t.equal(newSlot.statusCode, 201)
      t.match(newSlot.json().data.document.list[1], { files: [{ _fileName: 'f.txt' }] }, 'the next slot is created')
      const created = await put('groups.0.scans')
      t.equal(created.statusCode, 201)
      t.match(
        created.json().data.document.groups,
        [{ scans: [{ _fileName: 'f.txt' }] }],
        'a missing array is created for an index',
      )
      const nested = await put('a.b.c')
      t.match(nested.json().data.document.a, { b: { c: [{ _fileName: 'f.txt' }] } })

      const before = await getDocument(server, as.member, 'orders', document._id)
      const storedBefore = await storedObjects(world)
      for (const bad of [
        'list.5.files',
        'title.files',
        'tags.x',
        'list.name',
        'a.b.c.d',
        '__proto__.x',
        'list.constructor',
        'x.prototype',
        'a..b',
        '.a',
        'a.',
        '_id',
        '_hash',
        'x._secret',
        'status',
        'accessGroups',
        '0.files',
        'a.$set',
        'list.01',
      ]) {
        const response = await put(bad)
        t.equal(response.statusCode, 400, bad)
        t.equal(response.json().error, 'invalid_value_path', bad)
      }
      t.equal((await getDocument(server, as.member, 'orders', document._id))._hash, before._hash)
      t.same(await storedObjects(world), storedBefore, 'nothing stored for refused paths')
    })

    t.test(
      'limits: one byte over the size is 413 with nothing stored; too many files is 413; not multipart is 415',
      async (t) => {
        const world = await build(t, { adapter, config: { QUIRE_MAX_FILE_SIZE: 1024, QUIRE_MAX_FILES: 3 } })
        const { server, as } = world
        await createDefinition(server, as.admin, { name: 'orders' })
        const document = await createDocument(server, as.member, 'orders')
        const storedBefore = await storedObjects(world)

        const atLimit = await upload(server, as.member, 'orders', document._id, 'valuePath=files', [
          { name: 'max.bin', content: new Uint8Array(1024) },
        ])
        t.equal(atLimit.statusCode, 201, 'exactly the limit is fine')
        const before = await getDocument(server, as.member, 'orders', document._id)
        const storedAtLimit = await storedObjects(world)
        t.ok(storedAtLimit.length > storedBefore.length)

        const over = await upload(server, as.member, 'orders', document._id, 'valuePath=files', [
          { name: 'fine.txt', content: 'stored first, then removed' },
          { name: 'big.bin', content: new Uint8Array(1025) },
        ])
        t.equal(over.statusCode, 413)
        t.match(over.json(), { status: 'error', error: 'payload_too_large', description: /big\.bin.*1024 bytes/ })
        t.equal(over.headers.connection, 'close')
        t.same(await storedObjects(world), storedAtLimit, 'nothing more in the file store')
        t.same(await filesUnder(world.uploadDir), [], 'no spooled file left')
        t.equal(
          await DOCUMENTS_COLLECTIONS.attachmentFiles.in(world.resources.store).count({}),
          1,
          'only the first upload is recorded',
        )
        t.equal(
          (await getDocument(server, as.member, 'orders', document._id))._hash,
          before._hash,
          'the document is untouched',
        )

        const many = await upload(
          server,
          as.member,
          'orders',
          document._id,
          'valuePath=files',
          ['1', '2', '3', '4'].map((name) => ({ name, content: name })),
        )
        t.equal(many.statusCode, 413)
        t.match(many.json(), { error: 'payload_too_large', description: /More than 3 files/ })
        t.same(await storedObjects(world), storedAtLimit)

        const json = await server.inject({
          method: 'POST',
          url: `${attachmentsOf('orders', document._id)}?valuePath=files`,
          headers: as.member,
          payload: { file: 'x' },
        })
        t.equal(json.statusCode, 415)
        t.equal(json.json().error, 'unsupported_media_type')
        const none = await server.inject({
          method: 'POST',
          url: `${attachmentsOf('orders', document._id)}?valuePath=files`,
          headers: as.member,
          payload: new FormData(),
        })
        t.equal(none.statusCode, 400, 'a multipart body without files')
        const noBoundary = await server.inject({
          method: 'POST',
          url: `${attachmentsOf('orders', document._id)}?valuePath=files`,
          headers: { ...as.member, 'content-type': 'multipart/form-data' },
          payload: 'x',
        })
        t.equal(noBoundary.statusCode, 400)
        t.match(noBoundary.json(), { error: 'validation_error', description: /boundary/ })
        const part = (name: string) => `--b\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n`
        const cutShort = await server.inject({
          method: 'POST',
          url: `${attachmentsOf('orders', document._id)}?valuePath=files`,
          headers: { ...as.member, 'content-type': 'multipart/form-data; boundary=b' },
          payload: `${part('whole.txt')}complete\r\n${part('cut.txt')}abc`,
        })
        t.equal(cutShort.statusCode, 400, 'a body that ends inside a file')
        t.match(cutShort.json(), { error: 'validation_error', description: /ended inside file "cut\.txt"/ })
        t.same(await storedObjects(world), storedAtLimit, 'the complete first file was removed again')
        t.same(await filesUnder(world.uploadDir), [])
        t.equal((await getDocument(server, as.member, 'orders', document._id))._hash, before._hash)
      },
    )

    t.test(
      'attachment system fields survive PUT and PATCH; downloads take size and type from the file store',
      async (t) => {
        const world = await build(t, { adapter })
        const { server, as } = world
        await createDefinition(server, as.admin, { name: 'orders' })
        const document = await createDocument(server, as.member, 'orders')
        const saved = await upload(server, as.member, 'orders', document._id, 'valuePath=files', [
          { name: 'a.txt', content: 'alpha' },
        ])
        const [original] = saved.json().data.attachments as [Attachment]
        const forged = {
          ...original,
          _size: 1_000_000,
          _contentType: 'text/html',
          _sha256: '0'.repeat(64),
          _fileName: 'evil.html',
          store: 'image',
          _width: 1,
          _createdByUserId: 'someone',
          note: 'a user field beside it is kept',
        }
        const url = `${documentsOf('orders')}/${document._id}`
        for (const [method, payload] of [
          ['PUT', { files: [forged], moved: { list: [forged] } }],
          ['PATCH', { files: [forged] }],
        ] as const) {
          const written = await server.inject({ method, url, headers: as.member, payload })
          t.equal(written.statusCode, 200, method)
          const { files } = written.json().data as { files: Attachment[] }
          t.same(files, [{ ...original, note: 'a user field beside it is kept' }], `${method}: stored values kept`)
          const stored = await getDocument(server, as.member, 'orders', document._id)
          t.same((stored.files as Attachment[])[0], files[0], `${method}: as stored`)
        }
        const { moved } = (await getDocument(server, as.member, 'orders', document._id)) as { moved?: { list: [] } }
        t.same(moved?.list, [{ ...original, note: 'a user field beside it is kept' }], 'kept wherever it is moved')

        const download = await server.inject({
          method: 'GET',
          url: `${attachmentsOf('orders', document._id)}/${original._id}`,
          headers: as.member,
        })
        t.equal(download.statusCode, 200)
        t.equal(download.headers['content-length'], '5')
        t.equal(download.headers['content-type'], 'text/plain')
        t.equal(download.body, 'alpha')
      },
    )

    t.test('downloads answer the size and type the file store holds, whatever the metadata says', async (t) => {
      const world = await build(t, { adapter })
      const { server, as, resources } = world
      const definition = await createDefinition(server, as.admin, { name: 'orders' })
      const document = await createDocument(server, as.member, 'orders')
      const saved = await upload(server, as.member, 'orders', document._id, 'valuePath=files', [
        { name: 'a.txt', content: 'alpha' },
      ])
      const [original] = saved.json().data.attachments as [Attachment]
      // Metadata changed by other means than the API (the API keeps it): the store is still what counts.
      await storedDocuments(resources.store, definition._id).updateOne(
        { _id: document._id },
        { $set: { files: [{ ...original, _size: 1, _contentType: 'text/html' }] } },
      )
      const url = `${attachmentsOf('orders', document._id)}/${original._id}`
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await server.inject({ method, url, headers: as.member })
        t.equal(response.headers['content-length'], '5', method)
        t.equal(response.headers['content-type'], 'text/plain', method)
      }
      const ranged = await server.inject({ method: 'GET', url, headers: { ...as.member, range: 'bytes=2-' } })
      t.equal(ranged.statusCode, 206)
      t.equal(ranged.headers['content-range'], 'bytes 2-4/5')
      t.equal(ranged.body, 'pha')
    })

    t.test('download: whole, ranges (206), unsatisfiable (416), headers; remove', async (t) => {
      const world = await build(t, { adapter })
      const { server, as } = world
      const definition = await createDefinition(server, as.admin, { name: 'orders' })
      const document = await createDocument(server, as.member, 'orders', { externalId: 'ext-1' })
      const saved = await upload(server, as.member, 'orders', document._id, 'valuePath=files', [
        { name: 'Résumé; final%.txt', content: '0123456789' },
        { name: 'empty.txt', content: '' },
      ])
      const [file, empty] = saved.json().data.attachments as Attachment[]
      const url = `${attachmentsOf('orders', 'ext-1')}/${file!._id}`

      const whole = await server.inject({ method: 'GET', url, headers: as.member })
      t.equal(whole.statusCode, 200)
      t.equal(whole.body, '0123456789')
      t.equal(whole.headers['content-type'], 'text/plain')
      t.equal(whole.headers['content-length'], '10')
      t.equal(whole.headers['accept-ranges'], 'bytes')
      t.equal(whole.headers['x-content-type-options'], 'nosniff')
      t.equal(
        whole.headers['content-disposition'],
        `attachment; filename="R_sum_; final_.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%3B%20final%25.txt`,
      )
      const etag = whole.headers.etag as string
      const head = await server.inject({ method: 'HEAD', url, headers: as.member })
      t.equal(head.statusCode, 200)
      t.equal(head.headers['content-length'], '10')
      t.equal(head.body, '')
      t.match(etag, /^"[0-9a-f]{24}"$/)

      const cases: Array<[string, number, string, string | undefined]> = [
        ['bytes=2-5', 206, '2345', 'bytes 2-5/10'],
        ['bytes=7-', 206, '789', 'bytes 7-9/10'],
        ['bytes=-3', 206, '789', 'bytes 7-9/10'],
        ['bytes=8-100', 206, '89', 'bytes 8-9/10'],
        ['bytes=0-1,4-5', 200, '0123456789', undefined],
        ['items=0-1', 200, '0123456789', undefined],
        ['bytes=5-2', 200, '0123456789', undefined],
      ]
      for (const [range, status, body, contentRange] of cases) {
        const response = await server.inject({ method: 'GET', url, headers: { ...as.member, range } })
        t.equal(response.statusCode, status, range)
        t.equal(response.body, body, range)
        t.equal(response.headers['content-range'], contentRange, range)
        t.equal(response.headers['content-length'], String(body.length), range)
      }
      const unsatisfiable = await server.inject({ method: 'GET', url, headers: { ...as.member, range: 'bytes=10-' } })
      t.equal(unsatisfiable.statusCode, 416)
      t.equal(unsatisfiable.headers['content-range'], 'bytes */10')
      t.equal(unsatisfiable.json().status, 'error')
      const stale = await server.inject({
        method: 'GET',
        url,
        headers: { ...as.member, range: 'bytes=0-1', 'if-range': '"other"' },
      })
      t.equal(stale.statusCode, 200, 'If-Range that no longer matches: the whole file')
      const fresh = await server.inject({
        method: 'GET',
        url,
        headers: { ...as.member, range: 'bytes=0-1', 'if-range': etag },
      })
      t.equal(fresh.statusCode, 206)

      const emptyUrl = `${attachmentsOf('orders', document._id)}/${empty!._id}`
      const emptyWhole = await server.inject({ method: 'GET', url: emptyUrl, headers: as.member })
      t.equal(emptyWhole.statusCode, 200)
      t.equal(emptyWhole.body, '')
      t.equal(emptyWhole.headers['content-length'], '0')
      t.equal(
        (await server.inject({ method: 'GET', url: emptyUrl, headers: { ...as.member, range: 'bytes=0-' } }))
          .statusCode,
        416,
      )

      const missing = await server.inject({
        method: 'GET',
        url: `${attachmentsOf('orders', document._id)}/000000000000000000000000`,
        headers: as.member,
      })
      t.equal(missing.statusCode, 404)
      t.equal(missing.json().error, 'attachment_not_found')

      const removed = await server.inject({ method: 'DELETE', url, headers: as.member })
      t.equal(removed.statusCode, 200)
      t.match(removed.json().data, { _id: file!._id, deleted: true })
      t.same(removed.json().data.document.files, [empty])
      t.equal(await stored(world, definition._id, document._id, file!), null, 'the file left the store')
      t.equal((await server.inject({ method: 'GET', url, headers: as.member })).statusCode, 404)
      const multipartDelete = await server.inject({
        method: 'DELETE',
        url: emptyUrl,
        headers: as.member,
        payload: form([{ name: 'x.txt', content: 'x' }]),
      })
      t.equal(multipartDelete.statusCode, 415, 'only the save route takes multipart')
      const again = await server.inject({ method: 'DELETE', url, headers: as.member })
      t.equal(again.statusCode, 404)
      t.equal(again.json().error, 'attachment_not_found')
    })

    t.test(
      'access: hidden documents and other environments are not found; deleting a document removes its files',
      async (t) => {
        const world = await build(t, { adapter })
        const { server, as } = world
        const definition = await createDefinition(server, as.admin, { name: 'orders' })
        const secret = await createDocument(server, as.admin, 'orders', { accessGroups: ['sales'] })
        const hidden = await upload(server, as.member, 'orders', secret._id, 'valuePath=files', [
          { name: 'a.txt', content: 'a' },
        ])
        t.equal(hidden.statusCode, 404)
        t.equal(hidden.json().error, 'document_not_found')
        const allowed = await upload(server, as.sales, 'orders', secret._id, 'valuePath=files', [
          { name: 'a.txt', content: 'a' },
        ])
        t.equal(allowed.statusCode, 201)
        const [file] = allowed.json().data.attachments as Attachment[]
        const url = `${attachmentsOf('orders', secret._id)}/${file!._id}`
        t.equal((await server.inject({ method: 'GET', url, headers: as.member })).statusCode, 404)
        const otherEnvironment = await server.inject({ method: 'GET', url, headers: as.adminB })
        t.equal(otherEnvironment.statusCode, 404)
        t.equal(otherEnvironment.json().error, 'document_definition_not_found_for_id_or_name')

        t.equal(
          (await server.inject({ method: 'DELETE', url: `${documentsOf('orders')}/${secret._id}`, headers: as.sales }))
            .statusCode,
          200,
        )
        t.equal(await stored(world, definition._id, secret._id, file!), null)
        t.equal(await DOCUMENTS_COLLECTIONS.attachmentFiles.in(world.resources.store).count({}), 0)

        // Dropping a definition with its documents drops their files too.
        const doc = await createDocument(server, as.member, 'orders')
        const saved = (
          await upload(server, as.member, 'orders', doc._id, 'valuePath=files', [{ name: 'b.txt', content: 'b' }])
        ).json().data
        t.equal(
          (
            await server.inject({
              method: 'DELETE',
              url: `/api/v2/document-definitions/orders?force=true`,
              headers: as.admin,
            })
          ).statusCode,
          200,
        )
        t.equal(await stored(world, definition._id, doc._id, saved.attachments[0]), null)
      },
    )
  })
}
