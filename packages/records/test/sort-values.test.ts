import t from 'tap'
import { KeptRange } from '../src/embedded/kept-range.js'
import { SortValueCache } from '../src/embedded/sort-values.js'
import type { StoredRecord } from '../src/index.js'

const index = { id: 7, spec: { name: 'category', fields: { category: 1 } }, multikey: false } as const
const byScore = [{ path: 'score', direction: -1 as const }]
const record = (id: string, category: string, score: number): StoredRecord => ({ _id: id, category, score })

/** A kept range of `category = c` (`[indexId, tag, value]` up to the next key), with its candidates. */
function rangeOf(category: string, records: StoredRecord[]): KeptRange {
  const range = new KeptRange({ ...index }, [7, 3, category], [7, 3, `${category}\uffff`], byScore)
  for (const r of records) range.add(r._id, [2, r.score as number])
  return range
}

const none = (): undefined => undefined
const idsOf = (range: KeptRange | undefined) => [...(range?.ids ?? [])].sort()

t.test("a reader whose snapshot predates this process's write reads the records it changed, the rest kept", (t) => {
  const cache = new SortValueCache(1000)
  const before = cache.snapshot(1, 100)
  before.keepRange('c1', rangeOf('c1', [record('a', 'c1', 1), record('b', 'c1', 2)]), 100, none)

  // A write moves `a` out of c1 (not committed yet: readers still hold stamp 100).
  cache.changed(1, 100, 101, new Map([['a', { before: record('a', 'c1', 1), after: record('a', 'c2', 9) }]]))
  const stale = cache.snapshot(1, 100)
  t.same([...stale.hidden()], ['a'], 'the record written since is read from the store')
  t.same(idsOf(stale.range('c1')), ['b'], 'the range already follows the write')
  stale.keepRange('c2', rangeOf('c2', [record('a', 'c2', 9)]), 100, none)
  t.equal(cache.snapshot(1, 101).range('c2'), undefined, 'nothing is kept while the write is not in the store')

  // `a` comes back into c1 with a new score: the range holds it with its value.
  cache.changed(1, 101, 102, new Map([['a', { before: record('a', 'c2', 9), after: record('a', 'c1', 7) }]]))
  const current = cache.snapshot(1, 102)
  t.same(current.hidden().size, 0)
  const range = current.range('c1')
  t.same(range?.values[range.ids.indexOf('a')], [2, 7], 'the written value follows the record')

  // A stamp this process never wrote (another process's write): nothing kept holds.
  const other = cache.snapshot(1, 555)
  t.equal(other.range('c1'), undefined)
  t.end()
})

t.test('past its capacity the cache lets the ranges used least recently go, not everything', (t) => {
  const cache = new SortValueCache(100)
  const snapshot = cache.snapshot(1, 1)
  const ranges = ['c0', 'c1', 'c2', 'c3']
  for (const c of ranges) {
    snapshot.keepRange(
      c,
      rangeOf(
        c,
        Array.from({ length: 30 }, (_, i) => record(`${c}-${i}`, c, i)),
      ),
      1,
      none,
    )
    if (c !== 'c0') snapshot.range('c0')
  }
  t.ok(snapshot.range('c0'), 'the range used all along is kept')
  t.ok(snapshot.range('c3'), 'the newest is kept')
  t.equal(snapshot.range('c1'), undefined, 'the least recently used went')
  t.end()
})

t.test("a range read across this process's writes is kept as of the last, not as the read met it", (t) => {
  const cache = new SortValueCache(1000)
  const reading = cache.snapshot(1, 100)
  const now = new Map([
    ['a', record('a', 'c2', 9)],
    ['b', record('b', 'c1', 5)],
    ['c', record('c', 'c1', 3)],
  ])
  // While the read paused: `a` left c1, `b` got a new score, `c` came in (the read met `b` twice, `c` never).
  cache.changed(1, 100, 101, new Map([['a', { before: record('a', 'c1', 1), after: now.get('a') }]]))
  cache.changed(1, 101, 102, new Map([['b', { before: record('b', 'c1', 2), after: now.get('b') }]]))
  cache.changed(1, 102, 103, new Map([['c', { before: record('c', 'c3', 1), after: now.get('c') }]]))
  t.ok(reading.follows(103), "the store's stamp is this process's last write")
  const met = rangeOf('c1', [record('a', 'c1', 1), record('b', 'c1', 2), record('b', 'c1', 5), record('d', 'c1', 4)])

  reading.keepRange('c1', met, 102, (id) => now.get(id))
  t.equal(cache.snapshot(1, 103).range('c1'), undefined, 'not kept while the last write is not in the store')

  reading.keepRange('c1', met, 103, (id) => now.get(id))
  const kept = cache.snapshot(1, 103).range('c1')
  t.same(idsOf(kept), ['b', 'c', 'd'], 'each record once, as it is now')
  t.same(kept?.values[kept.ids.indexOf('b')], [2, 5], 'with its values now')

  const foreign = cache.snapshot(2, 100)
  t.notOk(foreign.follows(777), "another process's write is not followed")
  foreign.keepRange('c1', rangeOf('c1', [record('d', 'c1', 4)]), 777, (id) => now.get(id))
  t.equal(cache.snapshot(2, 777).range('c1'), undefined, 'and nothing read across it is kept')
  t.end()
})

t.test("another process's writes are followed as the store tells them, else what is kept goes", (t) => {
  // The store: its journal of writes (stamp before, ids) up to stamp 203, and its records now.
  const journal = [
    { before: 200, after: 201, ids: ['a'] },
    { before: 201, after: 202, ids: ['b'] },
    { before: 202, after: 203, ids: ['c'] },
  ]
  const stored = new Map([
    ['a', record('a', 'c2', 9)],
    ['b', record('b', 'c1', 8)],
    ['c', record('c', 'c1', 7)],
  ])
  const asked: Array<[number | undefined, number | undefined]> = []
  const cache = new SortValueCache(1000, {
    since(collectionId, from, to) {
      asked.push([from, to])
      const start = journal.findIndex(({ before }) => before === from)
      const end = journal.findIndex(({ after }) => after === to)
      if (collectionId !== 1 || start < 0 || end < start) return undefined
      return journal.slice(start, end + 1).map(({ before, ids }) => ({ before, ids }))
    },
    record: (_, id) => stored.get(id),
  })
  cache.snapshot(1, 200).keepRange('c1', rangeOf('c1', [record('a', 'c1', 1), record('b', 'c1', 2)]), 200, none)

  // Theirs: `a` left c1, `b` got a new score, `c` came in.
  const now = cache.snapshot(1, 203)
  t.same(asked, [[200, 203]], 'the writes since what is kept are asked for')
  const range = now.range('c1')
  t.same(idsOf(range), ['b', 'c'], 'the range follows them')
  t.same(range?.values[range.ids.indexOf('b')], [2, 8], 'with the values the store has now')
  t.same(cache.snapshot(1, 201).hidden(), new Set(['b', 'c']), 'a reader behind them reads what they changed')

  // This process's own write after theirs goes on from there.
  cache.changed(1, 203, 204, new Map([['b', { before: record('b', 'c1', 8), after: record('b', 'c1', 6) }]]))
  const mine = cache.snapshot(1, 204).range('c1')
  t.same(mine?.values[mine.ids.indexOf('b')], [2, 6])

  // A stamp the store's journal does not lead to: nothing kept holds.
  t.equal(cache.snapshot(1, 999).range('c1'), undefined)
  t.end()
})
