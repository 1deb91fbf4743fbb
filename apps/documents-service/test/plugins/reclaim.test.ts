import { randomUUID } from 'node:crypto'
import { readdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import t from 'tap'
import type { Attachment } from '@quire/contracts'
import { createServer } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import { ensureDocumentsIndexes } from '../../src/collections.js'
import { reclaimPlugin } from '../../src/plugins/reclaim.js'
import { attachmentsOf, keyOf, upload } from '../attachments-helper.js'
import { ENV_A, build, createDefinition, createDocument } from '../helper.js'

/** Past the default grace (1 h). */
const TWO_HOURS_AGO = new Date(Date.now() - 2 * 60 * 60 * 1000)
const age = (path: string) => utimes(path, TWO_HOURS_AGO, TWO_HOURS_AGO)

t.test('at start, spool and temp files of killed uploads past the grace go; fresh ones and others stay', async (t) => {
  const resources = await testResources(t)
  await ensureDocumentsIndexes(resources.store)
  const uploadDir = t.testdir({
    'quire-upload-killed': 'half an upload',
    'quire-upload-in-progress': 'an upload being written',
    'someone-elses-file': 'not ours',
  })
  await age(join(uploadDir, 'quire-upload-killed'))
  await age(join(uploadDir, 'someone-elses-file'))
  const storeTemp = join(resources.dataDir, 'files', 'tmp')
  const killedPut = randomUUID()
  await writeFile(join(storeTemp, killedPut), 'half a stored file')
  await age(join(storeTemp, killedPut))
  const putInProgress = randomUUID()
  await writeFile(join(storeTemp, putInProgress), 'a stored file being written')

  const app = createServer({ logLevel: 'silent' })
  await app.register(reclaimPlugin, { store: resources.store, files: resources.files, uploadDir })
  t.teardown(() => app.close())
  await app.ready()
  await app.reclaim()

  t.same((await readdir(uploadDir)).sort(), ['quire-upload-in-progress', 'someone-elses-file'])
  t.same(await readdir(storeTemp), [putInProgress])
})

t.test('a stored file no attachment names goes; attached and shared ones stay and are still served', async (t) => {
  const world = await build(t)
  const { server, as, files } = world
  const orders = await createDefinition(server, as.admin, { name: 'orders' })
  const order = await createDocument(server, as.member, 'orders', {})
  const uploaded = await upload(server, as.member, 'orders', order._id, 'valuePath=scans', [
    { name: 'kept.txt', content: 'kept' },
    { name: 'shared.txt', content: 'shared' },
  ])
  t.equal(uploaded.statusCode, 201)
  const [kept, shared] = uploaded.json().data.attachments as [Attachment, Attachment]
  // A copy shares the file; with its original removed, only the copy's record names it.
  const copied = await server.inject({
    method: 'POST',
    url: '/api/v2/documents/copyAttachments',
    headers: as.member,
    payload: [
      {
        source: { ddName: 'orders', _id: order._id, valuePath: 'scans', fileNames: ['shared.txt'] },
        target: { ddName: 'orders', _id: order._id, valuePath: 'copies' },
      },
    ],
  })
  t.equal(copied.statusCode, 200)
  const copy = copied.json().data[0].attachments[0] as Attachment
  const removed = await server.inject({
    method: 'DELETE',
    url: `${attachmentsOf('orders', order._id)}/${shared._id}`,
    headers: as.member,
  })
  t.equal(removed.statusCode, 200)

  const orphan = `${ENV_A}/${orders._id}/${order._id}/000000000000000000000000`
  const freshOrphan = `${ENV_A}/${orders._id}/${order._id}/111111111111111111111111`
  for (const key of [orphan, freshOrphan]) {
    await files.put(key, Readable.from([Buffer.from('orphan')]), { size: 6, contentType: 'text/plain' })
  }
  const root = join(world.resources.dataDir, 'files')
  for (const key of [orphan, keyOf(ENV_A, orders._id, order._id, kept), keyOf(ENV_A, orders._id, order._id, shared)]) {
    await age(join(root, files.nameOf(key)))
  }

  // A restart: its pass at start.
  const restarted = createServer({ logLevel: 'silent' })
  await restarted.register(reclaimPlugin, { store: world.resources.store, files, uploadDir: world.uploadDir })
  t.teardown(() => restarted.close())
  await restarted.ready()
  await restarted.reclaim()
  t.equal(await files.exists(orphan), false, 'the orphan past the grace is gone')
  t.equal(await files.exists(freshOrphan), true, 'a file younger than the grace stays (its upload may be running)')
  for (const [attachment, content] of [
    [kept, 'kept'],
    [copy, 'shared'],
  ] as const) {
    const read = await server.inject({
      method: 'GET',
      url: `${attachmentsOf('orders', order._id)}/${attachment._id}`,
      headers: as.member,
    })
    t.equal(read.statusCode, 200)
    t.equal(read.body, content)
  }
})
