import t from 'tap'
import {
  countsOfPrimary,
  countsPrimary,
  localCounts,
  type CountsChannel,
  type SharedCounts,
} from '../src/shared-counts.js'

const MINUTE = 60_000

/** A primary and `n` processes, their messages delivered on later turns as over IPC; `exit(i)` ends process i. */
function cluster(n: number, clock: () => number) {
  const primary = countsPrimary({ processes: () => n, clock })
  const processes = Array.from({ length: n }, (_, id) => {
    let listener: Parameters<CountsChannel['onAnswer']>[0] = () => undefined
    const peer = { id, send: (answer: Parameters<typeof listener>[0]) => setImmediate(() => listener(answer)) }
    const channel: CountsChannel = {
      send: (message) => setImmediate(() => primary.receive(peer, message)),
      onAnswer: (onAnswer) => {
        listener = onAnswer
      },
    }
    return { counts: countsOfPrimary(channel, clock), exit: () => primary.gone(peer) }
  })
  return processes
}

/** The waits of `uses` takes of `key`, spread over the processes in turn, all in flight at once. */
const takeAll = (all: SharedCounts[], key: string, uses: number, max: number) =>
  Promise.all(Array.from({ length: uses }, (_, i) => all[i % all.length]!.take(key, max, MINUTE)))

t.test('one process: a window allows max, then tells the seconds to its end; a new window allows again', async (t) => {
  let now = 1_000_000
  const counts = localCounts(() => now)
  const waits = await Promise.all(Array.from({ length: 4 }, () => counts.take('k', 3, MINUTE)))
  t.same(waits, [0, 0, 0, 60])
  t.equal(counts.refusedFor('k'), 60, 'known refused without counting')
  t.equal(counts.refusedFor('other'), 0)
  now += 59_001
  t.equal(await counts.take('k', 3, MINUTE), 1, 'rounded up to a second')
  now += 1_000
  t.equal(await counts.take('k', 3, MINUTE), 0, 'the next window')
  t.equal(counts.refusedFor('k'), 0)
})

t.test('one process: places held at once, given back once however often released', async (t) => {
  const counts = localCounts()
  const first = await counts.hold('env:e1', 2)
  const second = await counts.hold('env:e1', 2)
  t.ok(first && second)
  t.equal(await counts.hold('env:e1', 2), undefined, 'the third is refused')
  t.ok(await counts.hold('env:e2', 2), 'another key has its own')
  first!()
  first!()
  t.ok(await counts.hold('env:e1', 2), 'one place came back')
  t.equal(await counts.hold('env:e1', 2), undefined, 'and only one')
})

t.test('processes of a primary count one window together: max in all, not max each', async (t) => {
  const [a, b] = cluster(2, () => 5_000_000).map((process) => process.counts)
  for (const max of [1, 7, 100, 600]) {
    const key = `caller:${max}`
    const waits = await takeAll([a!, b!], key, max * 2, max)
    t.equal(waits.filter((wait) => wait === 0).length, max, `max ${max}: exactly max counted across both`)
    t.ok(
      waits.filter((wait) => wait > 0).every((wait) => wait === 60),
      'the others wait for the window to end',
    )
    t.equal(Math.max(a!.refusedFor(key), b!.refusedFor(key)), 60, 'a process the primary refused knows it')
  }
})

t.test('a process that used up its lease asks again; one whose caller left holds only a little', async (t) => {
  let now = 7_000_000
  const [a, b] = cluster(2, () => now).map((process) => process.counts)
  // The caller sends 10 through a, then the rest through b: b gets what a did not hold.
  for (let i = 0; i < 10; i++) t.equal(await a!.take('k', 600, MINUTE), 0)
  let throughB = 0
  while ((await b!.take('k', 600, MINUTE)) === 0) throughB++
  t.ok(throughB >= 600 - 10 - 600 / 8, `b was let ${throughB} of the 590 left: a held at most an eighth unused`)
  t.ok(throughB <= 590, 'never more than the window allows')
  now += MINUTE
  t.equal(await b!.take('k', 600, MINUTE), 0, 'a new window')
})

t.test('places are held across processes, and those of a process that exits come back', async (t) => {
  const processes = cluster(2, Date.now)
  const [a, b] = processes.map((process) => process.counts)
  const releaseA = await a!.hold('feed:e1', 2)
  t.ok(releaseA)
  t.ok(await a!.hold('feed:e1', 2))
  t.equal(await b!.hold('feed:e1', 2), undefined, 'b sees a hold both places')
  releaseA!()
  releaseA!()
  t.ok(await b!.hold('feed:e1', 2), 'one came back, once')
  t.equal(await b!.hold('feed:e1', 2), undefined)
  processes[0]!.exit()
  t.ok(await b!.hold('feed:e1', 2), 'a exited: what it held is free')
  t.equal(await b!.hold('feed:e1', 2), undefined, 'and no more')
})
