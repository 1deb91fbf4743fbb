import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import t from 'tap'
import { openFileStore } from '../src/index.js'
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
