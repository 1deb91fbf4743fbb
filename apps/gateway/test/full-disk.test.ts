import t from 'tap'
import type { Readable } from 'node:stream'
import { FileStoreFullError, type FileStore } from '@quire/files'
import { StoreFullError, type Collection, type RecordStore, type StoredRecord } from '@quire/records'
import { DOCUMENTS_COLLECTIONS } from '@quire/documents-service'
import { ADMIN } from './helper.js'
import { ENVELOPE, multipart, world } from './hardening/world.js'

const WRITES = ['insertOne', 'updateOne', 'deleteOne', 'deleteMany', 'ensureIndex', 'dropIndex'] as const

/** The store as the embedded adapter answers on a full disk while `full` is set: reads go on, writes are refused. */
function fillable(real: RecordStore, full: () => boolean): RecordStore {
  const refuse = () => Promise.reject(new StoreFullError('injected: the disk holding the store is full'))
  const guard = <T extends StoredRecord>(collection: Collection<T>): Collection<T> =>
    new Proxy(collection, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target)
        if (typeof value !== 'function') return value
        const write = (WRITES as readonly (string | symbol)[]).includes(property)
        return (...args: unknown[]) => (write && full() ? refuse() : Reflect.apply(value, target, args))
      },
    })
  return {
    collection: (name) => guard(real.collection(name)),
    transaction: (work) =>
      real.transaction((tx) =>
        work({
          collection: (name) => guard(tx.collection(name)),
          append: (...entry) => (full() ? refuse() : tx.append(...entry)),
        }),
      ),
    dropCollection: (name) => (full() ? refuse() : real.dropCollection(name)),
    ping: () => real.ping(),
    close: () => real.close(),
  }
}

t.test(
  'a full disk: writes are 507 insufficient_storage, reads and logins go on, writes resume with room',
  async (t) => {
    let full = false
    const w = await world(t, {}, (real) => {
      const files: FileStore = {
        ...real.files,
        put: async (key: string, source: Readable, options: { size: number; contentType: string }) => {
          if (!full) return real.files.put(key, source, options)
          source.resume()
          throw new FileStoreFullError('injected: the disk holding the files is full')
        },
      }
      return { ...real, store: fillable(real.store, () => full), files }
    })
    const docs = `/api/v2/document-definitions/${w.definition._id}/documents`
    const documentId = await w.newDocument({ title: 'kept' })

    full = true
    const created = await w.call('member', { method: 'POST', url: `${docs}/new`, payload: { title: 'refused' } })
    t.equal(created.statusCode, 507, { body: created.body })
    t.match(created.json(), { ...ENVELOPE, error: 'insufficient_storage' })
    t.notMatch(created.body, /injected|StoreFull/, 'nothing of the cause leaks')
    const patched = await w.call('member', { method: 'PATCH', url: `${docs}/${documentId}`, payload: { title: 'x' } })
    t.equal(patched.statusCode, 507)
    const uploaded = await w.call('member', {
      method: 'POST',
      url: `${docs}/${documentId}/attachments?valuePath=files`,
      ...multipart([{ filename: 'a.txt', content: 'bytes' }]),
    })
    t.equal(uploaded.statusCode, 507, { body: uploaded.body })
    t.match(uploaded.json(), { ...ENVELOPE, error: 'insufficient_storage' })

    const read = await w.call('member', { method: 'GET', url: `${docs}/${documentId}` })
    t.equal(read.statusCode, 200)
    t.equal(read.json().title, 'kept')
    t.equal((await w.call('member', { method: 'GET', url: docs })).statusCode, 200)
    const login = await w.server.inject({ method: 'POST', url: '/auth/login', payload: ADMIN })
    t.equal(login.statusCode, 200, 'signing in goes on', { body: login.body })
    t.ok(login.json().data.accessToken)
    t.equal((await w.server.inject({ method: 'GET', url: '/health' })).statusCode, 200)

    full = false
    const later = await w.call('member', { method: 'POST', url: `${docs}/new`, payload: { title: 'with room' } })
    t.equal(later.statusCode, 201, { body: later.body })
    const uploadedLater = await w.call('member', {
      method: 'POST',
      url: `${docs}/${documentId}/attachments?valuePath=files`,
      ...multipart([{ filename: 'a.txt', content: 'bytes' }]),
    })
    t.equal(uploadedLater.statusCode, 201, { body: uploadedLater.body })
    const titles = (await w.call('member', { method: 'GET', url: docs }))
      .json()
      .data.map((d: { title: string }) => d.title)
    t.notOk(titles.includes('refused'), 'nothing of a refused write was kept')
    t.ok(titles.includes('with room'))
    const stored = await DOCUMENTS_COLLECTIONS.attachmentFiles.in(w.resources.store).find({})
    for (const record of stored) t.ok(await w.resources.files.exists(record._id), `${record._id}: its file exists`)
  },
)

t.test('a full disk does not reopen a spent sign-in budget', async (t) => {
  let full = false
  const w = await world(t, { QUIRE_LOGIN_MAX_FAILURES_PER_ACCOUNT: '2' }, (real) => ({
    ...real,
    store: fillable(real.store, () => full),
  }))
  const login = (password: string) =>
    w.server.inject({ method: 'POST', url: '/auth/login', payload: { username: ADMIN.username, password } })
  for (let i = 0; i < 2; i++) t.equal((await login('wrong password')).statusCode, 401)
  full = true
  const right = await login(ADMIN.password)
  t.equal(right.statusCode, 429, 'the spent budget still refuses, the right password too', { body: right.body })
  t.match(right.json(), { ...ENVELOPE, error: 'rate_limited' })
})
