import { chmod, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import t from 'tap'
import { InvalidKeyError, openFileStore } from '../src/index.js'
import { fileStoreContract } from './file-store-contract.js'

const dataDir = t.testdir()
fileStoreContract(t, () => openFileStore({ dataDir }))

t.test('files live under <dataDir>/files and no temp file is left behind', async (t) => {
  const store = await openFileStore({ dataDir })
  t.teardown(() => store.close())
  await store.put('x', Readable.from([Buffer.from('x')]), { size: 1, contentType: 'text/plain' })
  await store.put('y', Readable.from([Buffer.from('x')]), { size: 2, contentType: 'text/plain' }).catch(() => undefined)
  t.same(await readdir(join(dataDir, 'files', 'tmp')), [])
})

t.test('ping fails when the files directory is gone', async (t) => {
  const dir = t.testdir()
  const store = await openFileStore({ dataDir: dir })
  t.teardown(() => store.close())
  await t.resolves(store.ping())
  await rm(join(dir, 'files'), { recursive: true })
  await t.rejects(store.ping())
})

t.test(
  'stored files and their folders are owner-only; the folders of an install from before are tightened',
  async (t) => {
    const dir = t.testdir()
    const modeOf = async (path: string) => (await stat(path)).mode & 0o777
    const store = await openFileStore({ dataDir: join(dir, 'data') })
    t.teardown(() => store.close())
    await store.put('env/def/doc/a', Readable.from([Buffer.from('secret')]), { size: 6, contentType: 'text/plain' })
    await store.copy('env/def/doc/a', 'env/def/doc/b')
    const root = join(dir, 'data', 'files')
    const entries = await readdir(root, { recursive: true, withFileTypes: true })
    const stored = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
    const folders = entries.filter((entry) => entry.isDirectory()).map((entry) => join(entry.parentPath, entry.name))
    t.equal(stored.length, 2)
    t.same(await Promise.all(stored.map(modeOf)), [0o600, 0o600])
    t.same(
      await Promise.all([join(dir, 'data'), root, ...folders].map(modeOf)),
      [join(dir, 'data'), root, ...folders].map(() => 0o700),
    )

    await chmod(root, 0o755)
    await chmod(join(root, 'tmp'), 0o755)
    const legacy = stored[0] ?? ''
    await chmod(legacy, 0o644)
    const reopened = await openFileStore({ dataDir: join(dir, 'data') })
    t.teardown(() => reopened.close())
    t.equal(await modeOf(root), 0o700)
    t.equal(await modeOf(join(root, 'tmp')), 0o700)
    await reopened.copy('env/def/doc/a', 'env/def/doc/c')
    await reopened.copy('env/def/doc/b', 'env/def/doc/d')
    const copies = (await readdir(root, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile())
    t.equal(copies.length, 4)
    const copyModes = await Promise.all(
      copies
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((path) => path !== legacy)
        .map(modeOf),
    )
    t.same(copyModes, [0o600, 0o600, 0o600], 'a copy of a 0644 file is 0600')
  },
)

t.test('list names the temp files of writes that never completed; removeListed stays inside the store', async (t) => {
  const dir = t.testdir({ outside: 'keep' })
  const store = await openFileStore({ dataDir: join(dir, 'data') })
  t.teardown(() => store.close())
  await store.put('env/def/doc/a', Readable.from([Buffer.from('a')]), { size: 1, contentType: 'text/plain' })
  const leftover = 'tmp/0b6f9d4e-6c1e-4b8e-9f53-4f7f3c1d2a10'
  await writeFile(join(dir, 'data', 'files', leftover), 'half an upload')

  t.same(
    (await store.list({ limit: 100 })).map(({ name }) => name),
    [store.nameOf('env/def/doc/a'), leftover],
  )
  await store.removeListed(leftover)
  t.same(await readdir(join(dir, 'data', 'files', 'tmp')), [])
  for (const name of ['../../outside', 'tmp/../../../outside', 'ab']) {
    await t.rejects(store.removeListed(name), InvalidKeyError, name)
  }
  t.equal(await readFile(join(dir, 'outside'), 'utf8'), 'keep')
})
