import { createHash } from 'node:crypto'
import { chmod, cp, open, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DOCUMENTS_COLLECTIONS } from '@quire/documents-service'
import {
  DEFINITIONS,
  downloads,
  form,
  list,
  login,
  orderWithFile,
  notOwnerOnly,
  quire,
  serve,
  tempDir,
  withCopies,
} from '../helper.js'

const BYTES = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251))

t.test(
  'backup while the server runs, then restore: documents, attachment bytes and logins are all there',
  async (t) => {
    const dataDir = await tempDir(t)
    const backupDir = join(await tempDir(t), 'backup')
    const running = await serve(t, dataDir)
    const { server } = running
    const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
    const created = await server.inject({
      method: 'POST',
      url: '/api/v2/users',
      headers: admin,
      payload: { username: 'member', password: 'member password' },
    })
    t.equal(created.statusCode, 201, created.body)
    t.equal(
      (await server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload: { name: 'orders' } }))
        .statusCode,
      201,
    )
    const documents = `${DEFINITIONS}/orders/documents`
    const ids: string[] = []
    for (let i = 0; i < 30; i++) {
      const response = await server.inject({
        method: 'POST',
        url: `${documents}/new`,
        headers: admin,
        payload: { n: i },
      })
      ids.push((response.json() as { data: { _id: string } }).data._id)
    }
    const upload = await server.inject({
      method: 'POST',
      url: `${documents}/${ids[0]}/attachments?valuePath=files`,
      headers: admin,
      payload: form([{ name: 'data.bin', content: BYTES }]),
    })
    t.equal(upload.statusCode, 201, upload.body)
    const attachmentId = (upload.json() as { data: { attachments: { _id: string }[] } }).data.attachments[0]?._id
    const listed = await list(server, `${documents}?limit=100`, admin)

    const backup = await quire(['backup', backupDir], { QUIRE_DATA_DIR: dataDir })
    t.equal(backup.code, 0, backup.stderr)
    t.match(backup.stdout, /the store and 1 files/)
    const late = await server.inject({
      method: 'POST',
      url: `${documents}/new`,
      headers: admin,
      payload: { late: true },
    })
    t.equal(late.statusCode, 201, 'the server kept working')
    const notEmpty = await quire(['backup', backupDir], { QUIRE_DATA_DIR: dataDir })
    t.equal(notEmpty.code, 1)
    t.match(notEmpty.stderr, /is not empty/)
    await running.close()

    const restoredDir = await tempDir(t)
    const restore = await quire(['restore', backupDir], { QUIRE_DATA_DIR: restoredDir })
    t.equal(restore.code, 0, restore.stderr)
    const again = await quire(['restore', backupDir], { QUIRE_DATA_DIR: restoredDir })
    t.equal(again.code, 1, 'a store in place is not replaced without --force')
    t.match(again.stderr, /already holds a store/)
    t.equal((await quire(['restore', backupDir, '--force'], { QUIRE_DATA_DIR: restoredDir })).code, 0)

    const { server: restored } = await serve(t, restoredDir)
    const member = await login(restored, 'member', 'member password', 'default')
    t.equal(member.status, 200, 'a user of the backup signs in')
    const as = (await login(restored, 'admin', 'correct horse battery', 'default')).headers
    t.same(await list(restored, `${documents}?limit=100`, as), listed, 'the same documents, without the late one')
    const download = await restored.inject({
      method: 'GET',
      url: `${documents}/${ids[0]}/attachments/${attachmentId}`,
      headers: as,
    })
    t.equal(download.statusCode, 200)
    t.same(download.rawPayload, BYTES, 'the same bytes')

    const notBackup = await quire(['restore', restoredDir], { QUIRE_DATA_DIR: await tempDir(t) })
    t.equal(notBackup.code, 1)
    t.match(notBackup.stderr, /not a backup made by `quire backup`/)
  },
)

t.test(
  'a file the copied documents refer to but the copy lacks fails the backup; an unreferenced one does not',
  async (t) => {
    const dataDir = await tempDir(t)
    const { server, store } = await serve(t, dataDir)
    const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
    const definition = await server.inject({
      method: 'POST',
      url: DEFINITIONS,
      headers: admin,
      payload: { name: 'orders' },
    })
    const definitionId = (definition.json() as { data: { _id: string } }).data._id
    const documents = `${DEFINITIONS}/orders/documents`
    const document = await server.inject({ method: 'POST', url: `${documents}/new`, headers: admin, payload: {} })
    const documentId = (document.json() as { data: { _id: string } }).data._id

    // A record of an upload that never stored its file: no document refers to it.
    const key = (attachmentId: string) => `default/${definitionId}/${documentId}/${attachmentId}`
    await DOCUMENTS_COLLECTIONS.attachmentFiles
      .in(store)
      .insertOne({ _id: key('never-stored'), definitionId, documentId, _createdOn: new Date().toISOString() })
    const fine = await quire(['backup', join(await tempDir(t), 'backup')], { QUIRE_DATA_DIR: dataDir })
    t.equal(fine.code, 0, fine.stderr)

    // A referenced file gone from the data dir stands for one removed after every snapshot the backup takes.
    const upload = await server.inject({
      method: 'POST',
      url: `${documents}/${documentId}/attachments?valuePath=files`,
      headers: admin,
      payload: form([{ name: 'a.txt', content: 'a' }]),
    })
    const attachmentId = (upload.json() as { data: { attachments: { _id: string }[] } }).data.attachments[0]?._id ?? ''
    const hash = createHash('sha256').update(key(attachmentId)).digest('hex')
    await rm(join(dataDir, 'files', hash.slice(0, 2), hash))
    const backupDir = join(await tempDir(t), 'backup')
    const lost = await quire(['backup', backupDir], { QUIRE_DATA_DIR: dataDir })
    t.equal(lost.code, 1)
    t.same(await readdir(backupDir), [], 'nothing half-made is left')
    t.match(lost.stderr, new RegExp(`files kept being removed while the backup ran \\(${key(attachmentId)}\\)`))
  },
)

t.test(
  'copied attachments: the backup holds their shared file once, and every copy downloads after a restore',
  async (t) => {
    const dataDir = await tempDir(t)
    const running = await serve(t, dataDir)
    const admin = (await login(running.server, 'admin', 'correct horse battery', 'default')).headers
    const held = await withCopies(running.server, admin)
    const expected = held.map(({ bytes }) => ({ status: 200, body: bytes }))
    t.same(await downloads(running.server, held, admin), expected)

    const backupDir = join(await tempDir(t), 'backup')
    const backup = await quire(['backup', backupDir], { QUIRE_DATA_DIR: dataDir })
    t.equal(backup.code, 0, backup.stderr)
    t.match(backup.stdout, /the store and 2 files/, 'the file both copies read, and the other one')
    await running.close()

    const restoredDir = await tempDir(t)
    const restore = await quire(['restore', backupDir], { QUIRE_DATA_DIR: restoredDir })
    t.equal(restore.code, 0, restore.stderr)
    const { server } = await serve(t, restoredDir)
    const as = (await login(server, 'admin', 'correct horse battery', 'default')).headers
    t.same(await downloads(server, held, as), expected)
    const [first] = held
    const removed = await server.inject({ method: 'DELETE', url: first?.url ?? '', headers: as })
    t.equal(removed.statusCode, 200, 'one copy removed')
    t.same((await downloads(server, held, as)).slice(1), expected.slice(1), 'the other copy still reads the file')
  },
)

/** A data dir with a user and a document, backed up; the server is closed. */
async function backedUp(t: Test) {
  const dataDir = await tempDir(t)
  const running = await serve(t, dataDir)
  const admin = (await login(running.server, 'admin', 'correct horse battery', 'default')).headers
  t.equal((await orderWithFile(running.server, admin, BYTES)).status, 201)
  const backupDir = join(await tempDir(t), 'backup')
  const backup = await quire(['backup', backupDir], { QUIRE_DATA_DIR: dataDir })
  t.equal(backup.code, 0, backup.stderr)
  await running.close()
  return { dataDir, backupDir }
}

/** A data dir holding a store of its own, and what a sign-in there reads: it must survive a refused restore. */
async function occupied(t: Test) {
  const dataDir = await tempDir(t)
  const running = await serve(t, dataDir)
  await running.close()
  return { dataDir, before: await readdir(dataDir), store: await readFile(join(dataDir, 'records', 'data.mdb')) }
}

t.test('a damaged backup is refused with the name of the damaged file, and the data dir is untouched', async (t) => {
  const { backupDir } = await backedUp(t)
  const manifest = JSON.parse(await readFile(join(backupDir, 'manifest.json'), 'utf8')) as {
    checksums: Record<string, string>
  }
  const attachment = Object.keys(manifest.checksums).find((path) => path.startsWith('files/')) ?? ''
  t.ok(attachment, 'the manifest records the attachment file')
  t.ok(manifest.checksums['records/data.mdb'], 'and the store')

  const damages: [string, (dir: string) => Promise<void>, RegExp][] = [
    [
      'a truncated store',
      (dir) => truncate(join(dir, 'records', 'data.mdb'), 8192),
      /records\/data\.mdb does not match/,
    ],
    [
      '512 overwritten bytes',
      async (dir) => {
        const file = await open(join(dir, 'records', 'data.mdb'), 'r+')
        await file.write(Buffer.alloc(512, 0xff), 0, 512, 4096)
        await file.close()
      },
      /records\/data\.mdb does not match/,
    ],
    ['no store', (dir) => rm(join(dir, 'records', 'data.mdb')), /records\/data\.mdb is missing/],
    ['a deleted attachment', (dir) => rm(join(dir, attachment)), new RegExp(`${attachment} is missing`)],
    ['an altered attachment', (dir) => writeFile(join(dir, attachment), 'not the bytes'), /does not match/],
  ]
  for (const [what, damage, message] of damages) {
    const copy = join(await tempDir(t), 'copy')
    await cp(backupDir, copy, { recursive: true })
    await damage(copy)
    const { dataDir, before, store } = await occupied(t)
    const restore = await quire(['restore', copy, '--force'], { QUIRE_DATA_DIR: dataDir })
    t.equal(restore.code, 1, what)
    t.match(restore.stderr, message, what)
    t.match(restore.stderr, /^quire: the backup is damaged: .*; nothing was changed\n$/, `${what}: one line`)
    t.same(await readdir(dataDir), before, `${what}: nothing added or removed`)
    t.same(await readFile(join(dataDir, 'records', 'data.mdb')), store, `${what}: the store as it was`)
  }
})

t.test('a backup without checksums is still walked: a truncated store is refused', async (t) => {
  const { backupDir } = await backedUp(t)
  const manifestPath = join(backupDir, 'manifest.json')
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>
  await writeFile(manifestPath, JSON.stringify({ format: 1, createdOn: manifest.createdOn, files: manifest.files }))
  await truncate(join(backupDir, 'records', 'data.mdb'), 8192)
  const { dataDir, before } = await occupied(t)
  const restore = await quire(['restore', backupDir, '--force'], { QUIRE_DATA_DIR: dataDir })
  t.equal(restore.code, 1)
  t.match(restore.stderr, /no checksums/)
  t.match(restore.stderr, /records\/data\.mdb is not a readable store/)
  t.same(await readdir(dataDir), before)
})

t.test('restore refuses a data dir a running server holds, and the server keeps its writes', async (t) => {
  const { backupDir } = await backedUp(t)
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  const restore = await quire(['restore', backupDir, '--force'], { QUIRE_DATA_DIR: dataDir })
  t.equal(restore.code, 1)
  t.match(restore.stderr, new RegExp(`is in use by process ${process.pid}`))
  const created = await server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload: { name: 'late' } })
  t.equal(created.statusCode, 201, 'the server still writes into its own store')
})

t.test('a backup and a restore are owner-only, files stored 0644 by an earlier version included', async (t) => {
  const dataDir = await tempDir(t)
  const { server, close } = await serve(t, dataDir)
  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  const upload = await orderWithFile(server, admin, 'a')
  t.equal(upload.status, 201, upload.body)
  await close()
  t.same(await notOwnerOnly(dataDir), {}, 'the server wrote nothing others can read')
  const entries = await readdir(dataDir, { recursive: true, withFileTypes: true })
  for (const entry of entries) {
    await chmod(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644)
  }

  const backupDir = await tempDir(t)
  await chmod(backupDir, 0o755)
  const backup = await quire(['backup', backupDir], { QUIRE_DATA_DIR: dataDir })
  t.equal(backup.code, 0, backup.stderr)
  t.same(await notOwnerOnly(backupDir), {}, 'the backup folder and all in it')
  t.ok((await readdir(join(backupDir, 'files'), { recursive: true })).length > 0, 'with the attachment')

  const restoredDir = join(await tempDir(t), 'restored')
  const restore = await quire(['restore', backupDir], { QUIRE_DATA_DIR: restoredDir })
  t.equal(restore.code, 0, restore.stderr)
  t.same(await notOwnerOnly(restoredDir), {}, 'the restored data dir')
})
