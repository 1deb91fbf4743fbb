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

t.test(
  'a full disk: put and copy reject with FileStoreFullError, keep nothing, and work again once there is room',
  async (t) => {
    const fs = await import('node:fs/promises')
    let full = false
    const enospc = (syscall: string) =>
      Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), { code: 'ENOSPC', syscall })
    const { openLocalStore } = await t.mockImport<typeof import('../src/local-store.js')>('../src/local-store.js', {
      'node:fs/promises': {
        ...fs,
        open: async (...args: Parameters<typeof fs.open>) => {
          const handle = await fs.open(...args)
          const write = handle.write.bind(handle) as (chunk: Buffer) => Promise<unknown>
          // The disk fills up in the middle of the file: the first bytes land, the next write is refused.
          Object.assign(handle, {
            write: async (chunk: Buffer) => {
              if (full) {
                await write(chunk.subarray(0, 1))
                throw enospc('write')
              }
              return write(chunk)
            },
          })
          return handle
        },
        copyFile: async (from: string, to: string) => {
          if (!full) return fs.copyFile(from, to)
          await fs.writeFile(to, 'part')
          throw enospc('copyfile')
        },
      },
    })
    const dir = t.testdir()
    const store = await openLocalStore(dir)
    t.teardown(() => store.close())
    const put = (key: string) =>
      store.put(key, Readable.from([Buffer.from('hello')]), { size: 5, contentType: 'text/plain' })
    await put('a')

    full = true
    await t.rejects(put('b'), { name: 'FileStoreFullError', statusCode: 507 })
    await t.rejects(store.copy('a', 'c'), { name: 'FileStoreFullError', statusCode: 507 })
    t.same(await readdir(join(dir, 'files', 'tmp')), [], 'no part of either file is left')
    t.equal(await store.stat('b'), null)
    t.equal(await store.stat('c'), null)
    t.equal((await store.stat('a'))?.size, 5, 'what was stored before is still there')

    full = false
    t.equal((await put('b')).size, 5)
    t.equal((await store.copy('a', 'c')).size, 5)
  },
)
