import t from 'tap'
import { openEmbeddedStore, runAccounted, WorkQueueFullError, type StoredRecord } from '../src/index.js'
import { spent } from '../src/embedded/long-work.js'

/**
 * Two environments at work, A having just spent `ms` of costly store work (charged as a slice would be): A then
 * rests before its next costly work while B goes on. Both are marked active in the same turn as the charge, so
 * neither has gone quiet (work-account.ts) however slow the machine.
 */
function aHasSpent(a: { id: string; queueLimit: number }, ms: number): void {
  runAccounted({ id: 'B', queueLimit: 8 }, () => undefined)
  runAccounted(a, () => spent(ms))
}

t.test("a write of an environment that spent its share waits while another environment's goes first", async (t) => {
  const store = openEmbeddedStore(t.testdir())
  t.teardown(() => store.close())
  const notes = store.collection<StoredRecord>('notes')
  const a = { id: 'A', queueLimit: 8 }
  aHasSpent(a, 50)
  const order: string[] = []
  const written = [
    runAccounted(a, () => notes.insertOne({ _id: 'a1' })).then(() => order.push('A')),
    runAccounted({ id: 'B', queueLimit: 8 }, () => notes.insertOne({ _id: 'b1' })).then(() => order.push('B')),
  ]
  await Promise.all(written)
  t.same(order, ['B', 'A'], "B's write, issued second, is answered first")
  t.same(
    (await notes.find({}, { sort: { _id: 1 } })).map((note) => note._id),
    ['a1', 'b1'],
    'both are stored',
  )
})

t.test("past its queue limit an environment's writes are refused; the others' are not", async (t) => {
  const store = openEmbeddedStore(t.testdir())
  t.teardown(() => store.close())
  const notes = store.collection<StoredRecord>('notes')
  const a = { id: 'A', queueLimit: 1 }
  aHasSpent(a, 50)
  const first = runAccounted(a, () => notes.insertOne({ _id: 'a1' }))
  const second = runAccounted(a, () => notes.insertOne({ _id: 'a2' }))
  const ofB = runAccounted({ id: 'B', queueLimit: 1 }, () => notes.insertOne({ _id: 'b1' }))
  const refused = await second.then(
    () => undefined,
    (error: unknown) => error,
  )
  t.ok(refused instanceof WorkQueueFullError, 'the write past the limit is refused')
  t.match(refused, { statusCode: 429, message: /environment A has 1 .*waiting/ })
  await Promise.all([first, ofB])
  t.same(
    (await notes.find({}, { sort: { _id: 1 } })).map((note) => note._id),
    ['a1', 'b1'],
    "the write within the limit and the other environment's are stored; the refused one is not",
  )
})
