import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DuplicateKeyError, newObjectId, openEmbeddedStore, type StoredRecord } from '../src/index.js'

// Records share msgpackr structures stored beside them; a structure added by a write that rolls back must
// not be named by a later committed record, or that record cannot be read after a restart.
t.test('a rolled-back write leaves no committed record naming a structure that was never saved', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-structures-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const shaped = (): StoredRecord => ({
    _id: newObjectId(),
    novel: { shape: 1, nested: { deeper: true } },
    other: [{ item: 'x' }],
  })

  let store = openEmbeddedStore(dataDir)
  await store.collection('items').ensureIndex({ name: 'code', fields: { code: 1 }, unique: true })
  await store.collection('items').insertOne({ _id: newObjectId(), code: 'taken' })
  // The novel record is written (and its structures saved) before the duplicate rolls the commit back.
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
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-structures-'))
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
