import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { newObjectId, openEmbeddedStore, tightenDataDir } from '../src/index.js'

const modeOf = (path: string) => statSync(path).mode & 0o7777

function scratch(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'quire-modes-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  return root
}

/** What another local user could read: the data dir, the store's folder and lmdb's two files. */
const storePaths = (dataDir: string) => ({
  [dataDir]: 0o700,
  [join(dataDir, 'records')]: 0o700,
  [join(dataDir, 'records', 'data.mdb')]: 0o600,
  [join(dataDir, 'records', 'lock.mdb')]: 0o600,
})

const modes = (paths: Record<string, number>) => Object.fromEntries(Object.keys(paths).map((p) => [p, modeOf(p)]))

t.test('a new data dir and the store files in it are owner-only', async (t) => {
  const dataDir = join(scratch(t), 'deep', 'data')
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  await store.collection('users').insertOne({ _id: newObjectId(), passwordHash: 'scrypt$...' })
  t.same(modes(storePaths(dataDir)), storePaths(dataDir))
  t.equal(modeOf(join(dataDir, '..')), 0o700, 'a parent it created too')
})

t.test('an install from before, 0755 folders and 0644 files, is tightened when opened', async (t) => {
  const dataDir = scratch(t)
  const first = openEmbeddedStore(dataDir)
  const record = { _id: newObjectId(), secret: 'kept' }
  await first.collection('users').insertOne(record)
  await first.close()
  for (const [path, mode] of Object.entries(storePaths(dataDir))) chmodSync(path, mode === 0o700 ? 0o755 : 0o644)

  t.same(tightenDataDir(dataDir).sort(), Object.keys(storePaths(dataDir)).sort(), 'it says what it changed')
  t.same(tightenDataDir(dataDir), [], 'and nothing the second time')

  for (const [path, mode] of Object.entries(storePaths(dataDir))) chmodSync(path, mode === 0o700 ? 0o755 : 0o644)
  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  t.same(modes(storePaths(dataDir)), storePaths(dataDir), 'opening the store tightens it as well')
  t.same(await store.collection('users').findOne({ _id: record._id }), record)
})

t.test('a data dir set to a shared sticky folder is not taken from the others', async (t) => {
  const shared = scratch(t)
  chmodSync(shared, 0o1777)
  const store = openEmbeddedStore(shared)
  t.teardown(() => store.close())
  t.equal(modeOf(shared), 0o1777)
  t.equal(modeOf(join(shared, 'records')), 0o700)
  t.equal(modeOf(join(shared, 'records', 'data.mdb')), 0o600)
})

t.test('a backup copy is owner-only', async (t) => {
  const root = scratch(t)
  const store = openEmbeddedStore(join(root, 'data'))
  t.teardown(() => store.close())
  await store.collection('users').insertOne({ _id: newObjectId() })
  await store.backup(join(root, 'copy'))
  t.equal(modeOf(join(root, 'copy', 'records')), 0o700)
  t.equal(modeOf(join(root, 'copy', 'records', 'data.mdb')), 0o600)
})
