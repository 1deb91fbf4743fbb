import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DuplicateKeyError, newObjectId, openEmbeddedStore, type StoredRecord } from '../src/index.js'

t.test('a write that rolled back leaves every committed record readable after a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-reopen-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const shaped = (): StoredRecord => ({
    _id: newObjectId(),
    novel: { shape: 1, nested: { deeper: true } },
    other: [{ item: 'x' }],
  })

  let store = openEmbeddedStore(dataDir)
  await store.collection('items').ensureIndex({ name: 'code', fields: { code: 1 }, unique: true })
  await store.collection('items').insertOne({ _id: newObjectId(), code: 'taken' })
  await t.rejects(
    store.transaction(async (tx) => {
      await tx.collection('items').insertOne(shaped())
      await tx.collection('items').insertOne({ _id: newObjectId(), code: 'taken' })
    }),
    DuplicateKeyError,
  )
  const kept = shaped()
  await store.collection('items').insertOne(kept)
  await store.close()

  store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  t.same(await store.collection('items').findOne({ _id: kept._id }), kept)
  t.equal(await store.collection('items').count({}), 2)
})

t.test('records written by one process are read by another sharing the data directory', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-reopen-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const writer = openEmbeddedStore(dataDir)
  const reader = openEmbeddedStore(dataDir)
  t.teardown(async () => {
    await writer.close()
    await reader.close()
  })
  await reader.collection('items').find({})
  const shapes: StoredRecord[] = Array.from({ length: 40 }, (_, i) => ({
    _id: newObjectId(),
    [`field${i}`]: { [`inner${i}`]: i },
  }))
  for (const record of shapes) await writer.collection('items').insertOne(record)
  t.same(await reader.collection('items').find({}), shapes)
})

// Services share a data dir and only some of them pass a dictionary: whichever opens first decides for all.
for (const first of ['a dictionary', 'none'] as const) {
  t.test(`the first open's choice (${first}) is kept: later opens read with it, whatever they are given`, async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'quire-reopen-'))
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
    const dictionary = Buffer.from(JSON.stringify({ _id: '', title: '', body: '', status: 'ready' }))
    const record = { _id: newObjectId(), title: 'x'.repeat(100), body: 'compressed '.repeat(40), status: 'ready' }
    let store = openEmbeddedStore(dataDir, first === 'none' ? {} : { compressionDictionary: dictionary })
    await store.collection('items').insertOne(record)
    await store.close()
    const later = [{}, { compressionDictionary: dictionary }, { compressionDictionary: Buffer.from('{"other":1}') }]
    for (const options of later) {
      store = openEmbeddedStore(dataDir, options)
      t.same(await store.collection('items').findOne({ _id: record._id }), record)
      await store.collection('items').insertOne({ ...record, _id: newObjectId() })
      await store.close()
    }
    store = openEmbeddedStore(dataDir)
    t.teardown(() => store.close())
    t.equal(await store.collection('items').count({ body: record.body }), 4)
  })
}
