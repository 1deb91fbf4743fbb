import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import type { Test } from 'tap'
import { FileNotFoundError, FilesError, InvalidKeyError, type FileStore } from '../src/index.js'

const from = (...chunks: Buffer[]) => Readable.from(chunks)

/** The behaviour every files adapter must have; run once per adapter. */
export function fileStoreContract(t: Test, open: () => Promise<FileStore>): void {
  let store: FileStore
  t.before(async () => {
    store = await open()
  })
  t.teardown(() => store?.close())

  const read = async (key: string, range?: { start: number; end: number }) =>
    buffer((await store.get(key, { range })).stream)

  t.test('put, get, stat, exists, overwrite', async (t) => {
    const bytes = randomBytes(300_000)
    const info = await store.put('docs/one.bin', from(bytes.subarray(0, 1000), bytes.subarray(1000)), {
      size: bytes.length,
      contentType: 'application/pdf',
    })
    t.equal(info.size, bytes.length)
    t.equal(info.contentType, 'application/pdf')
    t.type(info.etag, 'string')
    t.same(await store.stat('docs/one.bin'), info)
    t.equal(await store.exists('docs/one.bin'), true)
    const got = await store.get('docs/one.bin')
    t.equal(got.size, bytes.length)
    t.ok((await buffer(got.stream)).equals(bytes))
    await store.put('docs/one.bin', from(Buffer.from('new')), { size: 3, contentType: 'text/plain' })
    t.equal((await read('docs/one.bin')).toString(), 'new')
    t.equal((await store.stat('docs/one.bin'))?.contentType, 'text/plain')
  })

  t.test('ranges', async (t) => {
    const bytes = Buffer.from('0123456789')
    await store.put('ranges', from(bytes), { size: 10, contentType: 'text/plain' })
    // Not `0-0`: s3rver reads an end of 0 as "to the end" (real S3 does not).
    t.equal((await read('ranges', { start: 0, end: 1 })).toString(), '01')
    t.equal((await read('ranges', { start: 3, end: 6 })).toString(), '3456')
    t.equal((await read('ranges', { start: 9, end: 9 })).toString(), '9')
    t.equal((await store.get('ranges', { range: { start: 2, end: 4 } })).size, 10, 'size is the whole file')
    await t.rejects(store.get('ranges', { range: { start: 5, end: 10 } }), FilesError)
    await t.rejects(store.get('ranges', { range: { start: 5, end: 4 } }), FilesError)
  })

  t.test('empty files', async (t) => {
    t.equal((await store.put('empty', from(), { size: 0, contentType: 'text/plain' })).size, 0)
    t.equal((await read('empty')).length, 0)
    t.equal((await store.stat('empty'))?.size, 0)
  })

  t.test('server-side copy', async (t) => {
    await store.put('copy/source', from(Buffer.from('copied bytes')), { size: 12, contentType: 'text/csv' })
    const info = await store.copy('copy/source', 'copy/target')
    t.equal(info.size, 12)
    t.equal(info.contentType, 'text/csv')
    t.equal((await read('copy/target')).toString(), 'copied bytes')
    await store.remove('copy/source')
    t.equal((await read('copy/target')).toString(), 'copied bytes', 'the copy is independent')
    await t.rejects(store.copy('copy/missing', 'copy/other'), FileNotFoundError)
  })

  t.test('missing keys', async (t) => {
    await t.rejects(store.get('nothing/here'), FileNotFoundError)
    t.equal(await store.stat('nothing/here'), null)
    t.equal(await store.exists('nothing/here'), false)
    await store.remove('nothing/here')
    await store.put('removed', from(Buffer.from('x')), { size: 1, contentType: 'text/plain' })
    await store.remove('removed')
    t.equal(await store.exists('removed'), false)
  })

  t.test('keys with odd characters', async (t) => {
    const odd = 'A-b_c.d/..e/f-.-g/1.2.3/.hidden/-'
    await store.put(odd, from(Buffer.from('odd')), { size: 3, contentType: 'text/plain' })
    t.equal((await read(odd)).toString(), 'odd')
    await store.put('a', from(Buffer.from('a')), { size: 1, contentType: 'text/plain' })
    await store.put('a/b', from(Buffer.from('ab')), { size: 2, contentType: 'text/plain' })
    t.equal((await read('a')).toString(), 'a', 'a key and a key under it coexist')
    for (const bad of [
      '',
      '../escape',
      'a/../../b',
      '.',
      'a//b',
      '/abs',
      'trailing/',
      'sp ace',
      'ünï',
      'back\\slash',
      'q?x',
      'x'.repeat(2000),
    ]) {
      await t.rejects(
        store.put(bad, from(Buffer.from('x')), { size: 1, contentType: 'text/plain' }),
        InvalidKeyError,
        JSON.stringify(bad),
      )
      await t.rejects(store.get(bad), InvalidKeyError)
    }
  })

  t.test('ping answers while the store does', async (t) => {
    await t.resolves(store.ping())
  })

  t.test('a short or long stream stores nothing', async (t) => {
    await t.rejects(store.put('short', from(Buffer.from('abc')), { size: 5, contentType: 'text/plain' }))
    t.equal(await store.exists('short'), false)
    await t.rejects(store.put('long', from(Buffer.from('abcdef')), { size: 5, contentType: 'text/plain' }))
    t.equal(await store.exists('long'), false)
    await store.put('kept', from(Buffer.from('old')), { size: 3, contentType: 'text/plain' })
    await t.rejects(store.put('kept', from(Buffer.from('ne')), { size: 3, contentType: 'text/plain' }))
    t.equal((await read('kept')).toString(), 'old', 'a failed overwrite keeps the old file')
  })

  t.test('list names every stored file in order, page by page; removeListed removes one by its name', async (t) => {
    const keys = ['sweep/a', 'sweep/b', 'sweep/c']
    for (const key of keys) {
      await store.put(key, from(Buffer.from(key)), { size: key.length, contentType: 'text/plain' })
    }
    const wanted = new Set(keys.map((key) => store.nameOf(key)))

    // Only these files are compared: s3rver (the S3 test double) orders `a/b` before `a`.
    const ours = (names: string[]) => names.filter((name) => wanted.has(name))
    const all = await store.list({ limit: 10_000 })
    const names = ours(all.map(({ name }) => name))
    t.equal(names.length, keys.length)
    t.same(names, [...names].sort(), 'in name order')
    t.ok(all.every(({ modifiedOn }) => modifiedOn instanceof Date && !Number.isNaN(modifiedOn.getTime())))

    const paged: string[] = []
    for (let page = await store.list({ limit: 2 }); page.length > 0;) {
      t.ok(page.length <= 2)
      paged.push(...page.map(({ name }) => name))
      page = await store.list({ after: page.at(-1)?.name, limit: 2 })
    }
    t.same(ours(paged), names, 'pages follow one another without gaps or repeats')

    await store.removeListed(store.nameOf('sweep/a'))
    await store.removeListed(store.nameOf('sweep/a'))
    t.equal(await store.exists('sweep/a'), false)
    t.equal(await store.exists('sweep/b'), true)
  })
}
