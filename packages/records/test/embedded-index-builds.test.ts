import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { DuplicateKeyError, newObjectId, openEmbeddedStore } from '../src/index.js'

const builder = fileURLToPath(new URL('./fixtures/index-builder.ts', import.meta.url))
/** More records than one build chunk holds many times over: the build is still running when it is killed. */
const RECORDS = 20_000

t.setTimeout(120_000)

t.test('a unique index whose build was killed is dropped at the next open: no hidden constraint', async (t) => {
  const dataDir = t.testdir()
  // Same loaders as this test process, so the child runs the TypeScript sources too.
  const child = spawn(process.execPath, [...process.execArgv, builder, dataDir, String(RECORDS)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = once(child, 'exit')
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === 'building') child.kill('SIGKILL')
  }
  t.equal((await exited)[1], 'SIGKILL')

  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection('items')
  t.same(await items.indexes(), [], 'the half-built index is gone')
  await items.insertOne({ _id: newObjectId(), u: 1 })
  t.equal(await items.count({ u: 1 }), 2, 'a value the dead build had indexed is written again')
  await t.rejects(items.ensureIndex({ name: 'u', fields: { u: 1 }, unique: true }), DuplicateKeyError)
  await store.collection('items').deleteOne({ u: 1 })
  await items.ensureIndex({ name: 'u', fields: { u: 1 }, unique: true })
  t.same(await items.indexes(), [{ name: 'u', fields: { u: 1 }, unique: true, state: 'ready' }], 'built again')
})

t.test('a build in progress in this process is left alone by another open of the store', async (t) => {
  const dataDir = t.testdir()
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection('items')
  for (let i = 0; i < RECORDS; i += 500) {
    await Promise.all(Array.from({ length: 500 }, (_, j) => items.insertOne({ _id: newObjectId(), u: i + j })))
  }
  const built = items.ensureIndex({ name: 'u', fields: { u: 1 }, unique: true })
  while ((await items.indexes()).length === 0) await new Promise((resolve) => setImmediate(resolve))
  const other = openEmbeddedStore(dataDir)
  t.teardown(() => other.close())
  t.same(
    (await other.collection('items').indexes()).map(({ state }) => state),
    ['building'],
    'the other open sees the build, and keeps it',
  )
  await built
  t.same(
    (await items.indexes()).map(({ state }) => state),
    ['ready'],
  )
})

t.test('a duplicate written during a unique build is accepted and fails the build, not the write', async (t) => {
  const store = openEmbeddedStore(t.testdir())
  t.teardown(() => store.close())
  const items = store.collection('items')
  for (let i = 0; i < RECORDS; i += 500) {
    await Promise.all(Array.from({ length: 500 }, (_, j) => items.insertOne({ _id: newObjectId(), u: i + j })))
  }
  const built = items.ensureIndex({ name: 'u', fields: { u: 1 }, unique: true })
  const outcome = built.then(
    () => 'built',
    (error: unknown) => error,
  )
  while ((await items.indexes()).length === 0) await new Promise((resolve) => setImmediate(resolve))
  // Written while the build runs, both kept in the index being built: the constraint is not in force until the
  // index is complete.
  await items.insertOne({ _id: newObjectId(), u: 'late' })
  await items.insertOne({ _id: newObjectId(), u: 'late' })
  t.type(await outcome, DuplicateKeyError, 'the build fails')
  t.same(await items.indexes(), [], 'and leaves no index')
  t.equal(await items.count({ u: 'late' }), 2, 'the writes stand')
  await items.insertOne({ _id: newObjectId(), u: 'late' })
  t.equal(await items.count({ u: 'late' }), 3, 'no constraint is left behind')
})
