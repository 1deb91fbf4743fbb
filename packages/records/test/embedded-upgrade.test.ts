import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { DuplicateKeyError, newObjectId, openEmbeddedStore, type StoredRecord } from '../src/index.js'

// A data dir written by earlier versions: records as msgpack values sharing structures under `r/<collection>`,
// a unique index as `[...values, _id]` entries (format 2), and an index of the oldest versions (no format) that
// keys an array whole. Opening the store rewrites the records as JSON and rebuilds both indexes.
t.test('records and indexes of earlier versions are upgraded when the store opens', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-upgrade-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const records: StoredRecord[] = [0, 1, 2].map((i) => ({
    _id: newObjectId(),
    code: `c${i}`,
    tags: ['all', `t${i}`],
    nested: { n: i },
  }))
  const env = open({ path: join(dataDir, 'records'), maxDbs: 4096 })
  const old = env.openDB<StoredRecord, string>({
    name: 'r/items',
    keyEncoding: 'ordered-binary',
    sharedStructuresKey: Symbol.for('structures'),
  })
  const meta = env.openDB<unknown[], string>({ name: '__meta', keyEncoding: 'ordered-binary' })
  const code = env.openDB<null, Array<string | number>>({ name: 'i/items/code', keyEncoding: 'ordered-binary' })
  const tags = env.openDB<null, Array<string | number>>({ name: 'i/items/tags', keyEncoding: 'ordered-binary' })
  await env.transaction(() => {
    for (const [i, record] of records.entries()) {
      old.putSync(record._id, record)
      code.putSync([3, `c${i}`, record._id], null)
      tags.putSync([5, JSON.stringify(record.tags), record._id], null)
    }
    meta.putSync('items', [
      { spec: { name: 'code', fields: { code: 1 }, unique: true }, multikey: false, format: 2, multikeyPaths: [] },
      { spec: { name: 'tags', fields: { tags: 1 } }, multikey: true },
    ])
  })
  await env.close()

  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection('items')
  t.same(await items.find({}), records, 'every record reads back as written')
  const start = store.stats.reads
  t.equal((await items.findOne({ code: 'c1' }))?._id, records[1]?._id, 'a unique lookup finds the record')
  t.ok(store.stats.reads - start <= 2, `in ${store.stats.reads - start} reads`)
  await t.rejects(items.insertOne({ _id: newObjectId(), code: 'c2' }), DuplicateKeyError, 'uniqueness still holds')
  t.same(
    (await items.find({ tags: 'all' })).map((item) => item._id),
    records.map((record) => record._id),
    'array elements are keyed one by one',
  )
  t.equal(await items.count({}), 3)

  await store.close()
  const reopened = open({ path: join(dataDir, 'records'), maxDbs: 4096 })
  const emptied = reopened.openDB({ name: 'r/items', keyEncoding: 'ordered-binary' })
  t.equal(emptied.getKeysCount(), 0, 'the msgpack records are gone')
  await reopened.close()
  const again = openEmbeddedStore(dataDir)
  t.teardown(() => again.close())
  t.same(await again.collection('items').find({ tags: 't0' }), [records[0]], 'reopened without upgrading anew')
})
