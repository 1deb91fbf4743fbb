import { constants } from 'node:os'
import t, { type Test } from 'tap'
import * as lmdb from 'lmdb'
import { newObjectId, openEmbeddedStore, type StoredRecord } from '../src/index.js'

/**
 * A commit as lmdb-js fails it when the disk is full: every write of the batch rejects with "Commit failed" and the
 * ENOSPC behind it in `commitError`; the batch's start, which no caller holds, rejects too.
 */
function failedCommit(): Promise<never> {
  const cause = Object.assign(new Error('No space left on device: Attempting to write page at position 16773120'), {
    code: constants.errno.ENOSPC,
  })
  const commitError = Promise.reject(cause)
  const failure = () => Object.assign(new Error('Commit failed (see commitError for details)'), { commitError })
  void Promise.reject(failure())
  return Promise.reject(failure())
}

/** The embedded store on lmdb whose commits fail as on a full disk while `full` is set. */
async function fillableStore(t: Test) {
  let full = false
  const engine = await t.mockImport<typeof import('../src/embedded/engine.js')>('../src/embedded/engine.js', {
    lmdb: {
      ...lmdb,
      open: (options: lmdb.RootDatabaseOptionsWithPath) => {
        const env = lmdb.open(options)
        const transaction = env.transaction.bind(env)
        env.transaction = <T>(callback: () => T) => (full ? failedCommit() : transaction(callback))
        return env
      },
    },
  })
  const { openEmbeddedStore: open } = await t.mockImport<typeof import('../src/embedded/embedded-store.js')>(
    '../src/embedded/embedded-store.js',
    { '../src/embedded/engine.js': engine },
  )
  return {
    open,
    fill: (value: boolean) => {
      full = value
    },
  }
}

t.test(
  'a full disk refuses writes with StoreFullError; reads go on; writes work again once there is room',
  async (t) => {
    const dataDir = t.testdir()
    const { open, fill } = await fillableStore(t)
    const store = open(dataDir)
    const items = store.collection('items')
    const before: StoredRecord = { _id: newObjectId(), n: 1 }
    await items.insertOne(before)

    fill(true)
    const refused: StoredRecord = { _id: newObjectId(), n: 2 }
    await t.rejects(items.insertOne(refused), { name: 'StoreFullError', statusCode: 507 })
    await t.rejects(items.updateOne({ _id: before._id }, { $set: { n: 9 } }), { name: 'StoreFullError' })
    await t.rejects(
      store.transaction(async (tx) => {
        await tx.collection('items').insertOne({ _id: newObjectId() })
      }),
      { name: 'StoreFullError' },
    )
    t.same(await items.findOne({ _id: before._id }), before, 'reads go on')
    t.equal(await items.count({}), 1)

    fill(false)
    const after: StoredRecord = { _id: newObjectId(), n: 3 }
    await items.insertOne(after)
    await store.close()

    const reopened = openEmbeddedStore(dataDir)
    t.teardown(() => reopened.close())
    const stored = await reopened.collection('items').find({}, { sort: { n: 1 } })
    t.same(stored, [before, after], 'what was acknowledged is kept, and nothing of a refused write')
  },
)
