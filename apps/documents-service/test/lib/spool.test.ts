import { readdir } from 'node:fs/promises'
import * as fs from 'node:fs'
import { Readable, Writable } from 'node:stream'
import t, { type Test } from 'tap'

/** `spool` on a disk that takes `room` bytes, then refuses with ENOSPC, as a write stream reports it. */
async function spoolOnDisk(t: Test, room: number) {
  const { spool } = await t.mockImport<typeof import('../../src/lib/spool.js')>('../../src/lib/spool.js', {
    'node:fs': {
      ...fs,
      createWriteStream: (path: string, options: { flags: string; mode: number }) => {
        const file = fs.createWriteStream(path, options)
        let written = 0
        return new Writable({
          write(chunk: Buffer, _encoding, callback) {
            written += chunk.length
            if (written <= room) {
              file.write(chunk, callback)
              return
            }
            const error = Object.assign(new Error('ENOSPC: no space left on device, write'), {
              code: 'ENOSPC',
              syscall: 'write',
            })
            file.end(() => callback(error))
          },
          final(callback) {
            file.end(callback)
          },
        })
      },
    },
  })
  return spool
}

t.test('an upload the disk has no room for: 507 insufficient_storage, and its spool file is gone', async (t) => {
  const dir = t.testdir()
  const spool = await spoolOnDisk(t, 4)
  const source = Readable.from([Buffer.from('abcd'), Buffer.from('efgh')])
  await t.rejects(spool(source, dir, 1024, 'big.bin'), {
    name: 'ApiError',
    code: 'insufficient_storage',
    statusCode: 507,
  })
  t.same(await readdir(dir), [], 'nothing of the upload is left in the spool folder')
})

t.test('with room, the spool holds the whole upload', async (t) => {
  const dir = t.testdir()
  const spool = await spoolOnDisk(t, 1024)
  const spooled = await spool(Readable.from([Buffer.from('abcd'), Buffer.from('efgh')]), dir, 1024, 'a.bin')
  t.equal(spooled.size, 8)
  t.equal(fs.readFileSync(spooled.path, 'utf8'), 'abcdefgh')
})
