import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { newObjectId, openEmbeddedStore } from '../src/index.js'

t.test('a backup taken during writes opens as a store holding a prefix of them, indexes included', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-backup-'))
  const copyDir = mkdtempSync(join(tmpdir(), 'quire-backup-copy-'))
  t.teardown(() => {
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(copyDir, { recursive: true, force: true })
  })
  const dictionary = Buffer.from(JSON.stringify({ _id: '', code: 0, body: '' }))
  const store = openEmbeddedStore(dataDir, { compressionDictionary: dictionary })
  const items = store.collection('items')
  await items.ensureIndex({ name: 'code', fields: { code: 1 }, unique: true })
  const body = 'long enough to be compressed '.repeat(10)
  for (let code = 0; code < 50; code++) await items.insertOne({ _id: newObjectId(), code, body })

  // Writes go on while the copy is made: it must hold whole commits, in order.
  let code = 50
  const writer = (async () => {
    for (let i = 0; i < 300; i++) await items.insertOne({ _id: newObjectId(), code: code++, body })
  })()
  await store.backup(copyDir)
  await writer

  // The store this process had open is still open after the backup's handle closed.
  await items.insertOne({ _id: newObjectId(), code: -1, body })
  t.equal(await items.count({}), code + 1)
  await store.close()

  const copy = openEmbeddedStore(copyDir)
  t.teardown(() => copy.close())
  const copied = copy.collection('items')
  const count = await copied.count({})
  t.ok(count >= 50 && count <= code, `${count} records: those committed before the copy`)
  const codes = (await copied.find({}, { sort: { code: 1 } })).map((record) => record.code)
  t.same(
    codes,
    Array.from({ length: count }, (_, i) => i),
    'no gap: a prefix of the commits',
  )
  t.equal((await copied.findOne({ code: count - 1 }))?.body, body, 'read through the index, decompressed')
})
