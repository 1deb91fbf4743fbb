import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { DuplicateKeyError, newObjectId, openEmbeddedStore } from '../src/index.js'

// A data dir written by earlier versions holds indexes in their entry formats: unique ones as `[...values, _id]`
// (format 2), the oldest ones without a format, keying an array whole. Opening the store rebuilds them.
t.test('indexes in an earlier entry format are rebuilt when the store opens', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-upgrade-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const ids = [newObjectId(), newObjectId(), newObjectId()]
  let store = openEmbeddedStore(dataDir)
  const items = store.collection('items')
  await items.ensureIndex({ name: 'code', fields: { code: 1 }, unique: true })
  await items.ensureIndex({ name: 'tags', fields: { tags: 1 } })
  for (const [i, _id] of ids.entries()) await items.insertOne({ _id, code: `c${i}`, tags: ['all', `t${i}`] })
  await store.close()

  // Rewrite both indexes as the earlier versions left them.
  const env = open({ path: join(dataDir, 'records'), maxDbs: 4096 })
  const meta = env.openDB<Array<Record<string, unknown>>, string>({ name: '__meta', keyEncoding: 'ordered-binary' })
  const code = env.openDB<null, Array<string | number>>({ name: 'i/items/code', keyEncoding: 'ordered-binary' })
  const tags = env.openDB<null, Array<string | number>>({ name: 'i/items/tags', keyEncoding: 'ordered-binary' })
  await env.transaction(() => {
    for (const key of code.getKeys()) code.removeSync(key)
    for (const key of tags.getKeys()) tags.removeSync(key)
    for (const [i, _id] of ids.entries()) {
      code.putSync([3, `c${i}`, _id], null)
      tags.putSync([5, JSON.stringify(['all', `t${i}`]), _id], null)
    }
    const [codeIndex, tagsIndex] = meta.get('items') ?? []
    meta.putSync('items', [{ ...codeIndex, format: 2 }, { spec: tagsIndex?.spec, multikey: true }])
  })
  await env.close()

  store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const again = store.collection('items')
  const reads = () => store.stats.reads
  const start = reads()
  t.equal((await again.findOne({ code: 'c1' }))?._id, ids[1], 'a unique lookup finds the record')
  t.ok(reads() - start <= 2, `in ${reads() - start} reads`)
  await t.rejects(again.insertOne({ _id: newObjectId(), code: 'c2' }), DuplicateKeyError, 'uniqueness still holds')
  t.same((await again.find({ tags: 'all' })).map((item) => item._id), ids, 'array elements are keyed one by one')
  t.equal(await again.count({ tags: 't0' }), 1)
})
