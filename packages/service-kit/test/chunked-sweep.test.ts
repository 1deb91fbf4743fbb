import t from 'tap'
import { sweepInChunks, type ChunkedSweep, type SweepCandidate } from '../src/index.js'

class Conflict extends Error {}

/**
 * A store of `count` records of `size` characters each (`r0000`, ...), read in `_id` order; each transaction the
 * sweep runs is recorded by the ids it was given. `hooks.remove` runs first in each transaction.
 */
function fakeStore(count: number, size = 10) {
  const stored = new Map<string, string>()
  for (let i = 0; i < count; i++) stored.set(`r${String(i).padStart(4, '0')}`, 'x'.repeat(size))
  const transactions: string[][] = []
  const reads: number[] = []
  const hooks: { remove?: (ids: string[]) => Promise<void> | void } = {}
  const sweep: Omit<ChunkedSweep, 'stopped'> = {
    async read(limit) {
      reads.push(limit)
      const found: SweepCandidate[] = []
      for (const [_id, json] of [...stored].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (found.length === limit) break
        found.push({ _id, json })
      }
      return found
    },
    async remove(ids) {
      transactions.push(ids)
      await hooks.remove?.(ids)
      let deleted = 0
      for (const id of ids) if (stored.delete(id)) deleted++
      return deleted
    },
    raced: (error) => error instanceof Conflict,
  }
  return { stored, transactions, reads, hooks, sweep }
}

t.test('a backlog past one chunk is deleted to the end, in transactions of at most `records`', async (t) => {
  const { stored, transactions, sweep } = fakeStore(23)
  t.equal(await sweepInChunks({ ...sweep, stopped: () => false, records: 5 }), 23)
  t.equal(stored.size, 0)
  t.same(
    transactions.map((ids) => ids.length),
    [5, 5, 5, 5, 3],
  )
})

t.test('after each transaction the sweep rests four times as long as it took, before the next begins', async (t) => {
  const { transactions, hooks, sweep } = fakeStore(12)
  const events: string[] = []
  const took: number[] = []
  const rests: number[] = []
  hooks.remove = async () => {
    const started = performance.now()
    events.push('transaction')
    // Some work of the transaction's own: the rest it is owed is four times this at least.
    await new Promise<void>((resolve) => setImmediate(resolve))
    took.push(performance.now() - started)
  }
  const pause = async (ms: number) => {
    events.push('rest')
    rests.push(ms)
  }
  t.equal(await sweepInChunks({ ...sweep, stopped: () => false, records: 5, pause }), 12)
  t.equal(transactions.length, 3)
  t.same(events, ['transaction', 'rest', 'transaction', 'rest', 'transaction', 'rest'])
  t.ok(
    rests.every((ms, i) => ms >= 4 * (took[i] ?? Infinity)),
    'each rest is at least four times its transaction',
  )
})

t.test('a transaction ends before `bytes` of record text, with one record at least', async (t) => {
  const { stored, transactions, sweep } = fakeStore(7, 40)
  stored.set('r0002', 'x'.repeat(500))
  t.equal(await sweepInChunks({ ...sweep, stopped: () => false, records: 5, bytes: 100 }), 7)
  t.same(transactions, [['r0000', 'r0001'], ['r0002'], ['r0003', 'r0004'], ['r0005'], ['r0006']])
})

t.test('the first read takes 16 records; each next one about `bytes` of text at the last average', async (t) => {
  const { stored, reads, transactions, sweep } = fakeStore(1200, 100)
  for (let i = 0; i < 16; i++) stored.set(`r${String(i).padStart(4, '0')}`, 'x'.repeat(20_000))
  t.equal(await sweepInChunks({ ...sweep, stopped: () => false, bytes: 50_000 }), 1200)
  // 16 of 20 kB: 2 a transaction, and 2 in the next read (it finds small ones); then 500, the most.
  t.same(reads, [16, 2, 500, 500, 500])
  t.same(
    transactions.map((ids) => ids.length),
    [2, 2, 2, 2, 2, 2, 2, 2, 2, 500, 500, 182],
  )
})

t.test('nothing to delete: one read, no transaction', async (t) => {
  const { transactions, reads, sweep } = fakeStore(0)
  t.equal(await sweepInChunks({ ...sweep, stopped: () => false }), 0)
  t.same(reads, [16])
  t.same(transactions, [])
})

t.test('a race with another writer reads again; other errors reject', async (t) => {
  const { stored, transactions, hooks, sweep } = fakeStore(12)
  let conflicts = 1
  hooks.remove = () => {
    if (conflicts-- > 0) throw new Conflict()
  }
  t.equal(await sweepInChunks({ ...sweep, stopped: () => false, records: 5 }), 12)
  t.equal(stored.size, 0)
  t.same(
    transactions.map((ids) => ids.length),
    [5, 5, 5, 2],
    'the conflicted transaction was read and run again',
  )

  hooks.remove = () => {
    throw new Error('disk full')
  }
  stored.set('r9999', '{}')
  await t.rejects(sweepInChunks({ ...sweep, stopped: () => false }), { message: 'disk full' })
})

t.test('a full read none of which could go ends the sweep (no loop over records that stay)', async (t) => {
  const { transactions, sweep } = fakeStore(10)
  const stuck = {
    ...sweep,
    async remove(ids: string[]) {
      transactions.push(ids)
      return 0
    },
  }
  t.equal(await sweepInChunks({ ...stuck, stopped: () => false, records: 5 }), 0)
  t.equal(transactions.length, 1)
})

t.test('once stopped, no transaction starts; the one in progress ends', async (t) => {
  const { stored, transactions, reads, hooks, sweep } = fakeStore(20)
  let stopped = false
  hooks.remove = () => {
    // Closing begins while the second transaction runs.
    if (transactions.length === 2) stopped = true
  }
  t.equal(await sweepInChunks({ ...sweep, stopped: () => stopped, records: 5 }), 10)
  t.equal(stored.size, 10)
  t.equal(transactions.length, 2)
  t.equal(reads.length, 2)
  t.equal(await sweepInChunks({ ...sweep, stopped: () => stopped, records: 5 }), 0)
  t.equal(reads.length, 2, 'a stopped sweep reads nothing')
})
