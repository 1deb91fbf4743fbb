import t from 'tap'
import { Value } from '@sinclair/typebox/value'
import type { Collection, RecordStore, Transaction } from '@quire/records'
import { createServer } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import {
  DOCUMENTS_COLLECTIONS,
  ensureDocumentsIndexes,
  type ActionJobRecord,
  type ActionRunRecord,
} from '../../src/collections.js'
import { DocumentsConfigSchema, type DocumentsConfig } from '../../src/config.js'
import { actionsPlugin } from '../../src/plugins/actions.js'
import type { TestContext } from '../helper.js'

const HOUR = 60 * 60 * 1000
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * The plugin alone on a fresh store, not ready yet (its sweep at start would race the test's own calls).
 * `deletions` lists, for each transaction since, how many records it deleted.
 */
async function build(t: TestContext) {
  const { store } = await testResources(t)
  await ensureDocumentsIndexes(store)
  const app = createServer({ logLevel: 'silent' })
  await app.register(actionsPlugin, { store, config: Value.Default(DocumentsConfigSchema, {}) as DocumentsConfig })
  t.teardown(() => app.close())
  const deletions: number[] = []
  const transaction = store.transaction.bind(store)
  store.transaction = (work) =>
    transaction((tx) => {
      const index = deletions.push(0) - 1
      const counting = (collection: Collection): Collection =>
        new Proxy(collection, {
          get(target, property) {
            if (property !== 'deleteOne') {
              const value: unknown = Reflect.get(target, property, target)
              return typeof value === 'function' ? value.bind(target) : value
            }
            return async (...args: Parameters<Collection['deleteOne']>) => {
              const deleted = await target.deleteOne(...args)
              if (deleted) deletions[index]!++
              return deleted
            }
          },
        })
      return work({
        collection: (name: string) => counting(tx.collection(name)),
        append: (...entry) => tx.append(...entry),
      } as Transaction)
    })
  return {
    app,
    store,
    deletions,
    runs: DOCUMENTS_COLLECTIONS.actionRuns.in(store),
    jobs: DOCUMENTS_COLLECTIONS.actionJobs.in(store),
  }
}

/** Writes `count` records made by `make(i)` straight into `store`, 500 a transaction. */
async function seed<T extends ActionRunRecord | ActionJobRecord>(
  store: RecordStore,
  into: (tx: Transaction) => { insertOne(record: T): Promise<T> },
  count: number,
  make: (i: number) => T,
) {
  for (let from = 0; from < count; from += 500) {
    await store.transaction(async (tx) => {
      const collection = into(tx)
      for (let i = from; i < Math.min(count, from + 500); i++) await collection.insertOne(make(i))
    })
  }
}

const run = (_id: string, definitionId: string, expiresOn: number, environmentId = 'env_a'): ActionRunRecord => ({
  _id,
  environmentId,
  definitionId,
  documentId: 'doc',
  action: 'audit',
  trigger: 'afterCreate',
  status: 'succeeded',
  logs: [{ level: 'log', message: 'ran' }],
  durationMs: 1,
  attempt: 1,
  userId: 'u1',
  createdOn: iso(expiresOn - 7 * 24 * HOUR),
  expiresOn: iso(expiresOn),
})

const job = (_id: string, definitionId: string): ActionJobRecord => ({
  _id,
  _hash: 'h',
  environmentId: 'env_a',
  definitionId,
  documentId: 'doc',
  action: 'audit',
  trigger: 'afterCreate',
  userId: 'u1',
  depth: 1,
  document: {} as ActionJobRecord['document'],
  previous: null,
  attempt: 0,
  // Not due while the test runs: no runner claims it.
  dueOn: iso(Date.now() + 24 * HOUR),
  createdOn: iso(Date.now()),
})

const runsIn = (tx: Transaction) => DOCUMENTS_COLLECTIONS.actionRuns.in(tx)
const jobsIn = (tx: Transaction) => DOCUMENTS_COLLECTIONS.actionJobs.in(tx)
const id = (prefix: string, i: number) => `${prefix}${String(i).padStart(24 - prefix.length, '0')}`

t.test('runs past their retention are swept to the end, 500 a transaction; the others stay', async (t) => {
  const { store, runs, deletions, app } = await build(t)
  await seed(store, runsIn, 1234, (i) => run(id('a', i), 'd1', Date.now() - HOUR))
  await seed(store, runsIn, 3, (i) => run(id('b', i), 'd1', Date.now() + HOUR))
  deletions.length = 0

  t.equal(await app.actions.sweep(), 1234, 'every expired run')
  t.same(deletions, [16, 500, 500, 218], 'a first read of 16, then 500 a transaction')
  t.same(
    (await runs.find({})).map((each) => each._id),
    [id('b', 0), id('b', 1), id('b', 2)],
    'the runs still within their retention stay',
  )
  t.equal(await app.actions.sweep(), 0, 'nothing left to sweep')
})

t.test("a definition's drop deletes all its jobs and runs, past one chunk; another's stay", async (t) => {
  const { store, runs, jobs, deletions, app } = await build(t)
  await seed(store, jobsIn, 1100, (i) => job(id('a', i), 'd1'))
  await seed(store, runsIn, 1100, (i) => run(id('a', i), 'd1', Date.now() + HOUR))
  await seed(store, jobsIn, 2, (i) => job(id('b', i), 'd2'))
  await seed(store, runsIn, 2, (i) => run(id('b', i), 'd2', Date.now() + HOUR))
  // Another environment's runs, under the same definition id: not the dropped definition's.
  await seed(store, runsIn, 2, (i) => run(id('c', i), 'd1', Date.now() + HOUR, 'env_b'))
  deletions.length = 0

  await app.actions.drop({ _id: 'd1', _environmentId: 'env_a' })
  t.same(deletions, [16, 500, 500, 84, 16, 500, 500, 84], 'the jobs, then the runs, at most 500 a transaction')
  t.same(
    (await jobs.find({})).map((each) => each._id),
    [id('b', 0), id('b', 1)],
  )
  t.same(
    (await runs.find({})).map((each) => each._id),
    [id('b', 0), id('b', 1), id('c', 0), id('c', 1)],
  )
})

t.test('closing stops the sweep at start after its transaction in progress, and waits for it', async (t) => {
  const { app, store, runs } = await build(t)
  await seed(store, runsIn, 1200, (i) => run(id('a', i), 'd1', Date.now() - HOUR))

  // The sweep's second transaction (runs 17 to 516) waits until the app is closing.
  let entered: () => void = () => undefined
  const secondEntered = new Promise<void>((resolve) => (entered = resolve))
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  let count = 0
  const transaction = store.transaction.bind(store)
  store.transaction = async (work) => {
    if (++count === 2) {
      entered()
      await released
    }
    return transaction(work)
  }
  // After the plugin's preClose (the sweep is told to stop), before its onClose (which waits for the sweep).
  app.addHook('onClose', async () => release())

  await app.ready()
  await secondEntered
  t.equal(await runs.count({}), 1184, 'the first transaction (16 runs) went')
  await app.close()
  t.equal(count, 2, 'no transaction after closing began')
  t.equal(await runs.count({}), 684, 'the transaction in progress went; the rest stays')
})
