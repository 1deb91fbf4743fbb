import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { prewarm } from '../src/embedded/prewarm.js'
import { openEmbeddedStore } from '../src/index.js'

const MiB = 2 ** 20

t.test('reads the file front to back up to the limit, and no further than its end', async (t) => {
  const file = join(t.testdir(), 'data.mdb')
  writeFileSync(file, Buffer.alloc(9 * MiB, 1))
  const running = new AbortController().signal
  t.equal(await prewarm(file, 5 * MiB + 3, running), 5 * MiB + 3)
  t.equal(await prewarm(file, 64 * MiB, running), 9 * MiB)
})

t.test('stops once aborted, and a missing file reads nothing', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'data.mdb')
  writeFileSync(file, Buffer.alloc(9 * MiB, 1))
  t.equal(await prewarm(file, 64 * MiB, AbortSignal.abort()), 0)
  t.equal(await prewarm(join(dir, 'missing.mdb'), 64 * MiB, new AbortController().signal), 0)
})

t.test('a store warmed at open answers at once and closes while warming', async (t) => {
  const dataDir = t.testdir()
  const store = openEmbeddedStore(dataDir, { prewarmBytes: 64 * MiB })
  const items = store.collection('items')
  await items.insertOne({ _id: 'a', n: 1 })
  t.same(await items.findOne({ _id: 'a' }), { _id: 'a', n: 1 })
  await store.close()
  // Closed as soon as opened: the read ahead stops rather than holding the file.
  await openEmbeddedStore(dataDir, { prewarmBytes: 64 * MiB }).close()
  const again = openEmbeddedStore(dataDir, { prewarmBytes: 64 * MiB })
  t.teardown(() => again.close())
  t.same(await again.collection('items').findOne({ _id: 'a' }), { _id: 'a', n: 1 })
})
