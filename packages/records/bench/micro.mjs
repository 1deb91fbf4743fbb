// Microbenchmark of the embedded adapter, run against the build: `pnpm build && node bench/micro.mjs [records]`
// (BENCH_SECONDS per operation, default 1).
// Seeds N records (default 20,000) in a fresh temp dir, then prints ops/s (and reads/op where an index
// should keep it small) for the operations services use most.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

// BENCH_DIST points at another build (e.g. a copy of an older dist) to compare.
const dist = process.env.BENCH_DIST
  ? pathToFileURL(resolve(process.env.BENCH_DIST, 'index.js')).href
  : '../dist/index.js'
const { newObjectId, openEmbeddedStore } = await import(dist)

const N = Number(process.argv[2] ?? 20_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 1)
const ENVS = 50

const dir = mkdtempSync(join(tmpdir(), 'records-bench-'))
const store = openEmbeddedStore(dir)

const pick = (array) => array[Math.floor(Math.random() * array.length)]

/** Runs `op` with `inFlight` concurrent calls for about SECONDS seconds (at least `min` ops). */
async function measure(label, op, { inFlight = 1, min = 200, reads = false } = {}) {
  const readsBefore = store.stats.reads
  let done = 0
  const started = process.hrtime.bigint()
  const deadline = started + BigInt(Math.round(SECONDS * 1e9))
  const worker = async () => {
    while (done < min || process.hrtime.bigint() < deadline) {
      done++
      await op(done)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const perOp = reads ? `  reads/op ${((store.stats.reads - readsBefore) / done).toFixed(1)}` : ''
  console.log(
    `${label.padEnd(46)} ${Math.round(done / seconds)
      .toLocaleString('en-US')
      .padStart(9)} ops/s${perOp}`,
  )
}

const items = store.collection('items')
await items.ensureIndex({
  name: 'ext',
  fields: { externalId: 1 },
  unique: true,
  partial: { externalId: { $exists: true } },
})
await items.ensureIndex({ name: 'category_price', fields: { category: 1, price: -1 } })
await items.ensureIndex({ name: 'environmentIds', fields: { environmentIds: 1 } })

const record = (i) => ({
  _id: newObjectId(),
  ...(i % 2 === 0 ? { externalId: `e${i}` } : {}),
  category: `c${i % 10}`,
  price: (i * 7919) % 10_000,
  environmentIds: [`env${i % ENVS}`, `env${(i * 3) % ENVS}`, `env${(i * 7) % ENVS}`],
  name: `item ${i}`,
  payload: 'x'.repeat(200),
  _hash: 'h0',
})

const seedStart = Date.now()
const ids = []
for (let i = 0; i < N; i += 500) {
  const batch = []
  for (let j = i; j < Math.min(N, i + 500); j++) batch.push(items.insertOne(record(j)).then((r) => ids.push(r._id)))
  await Promise.all(batch)
}
console.log(`seeded ${N} records in ${((Date.now() - seedStart) / 1000).toFixed(1)} s (500 in flight)`)

const writes = store.collection('writes')
await writes.ensureIndex({
  name: 'ext',
  fields: { externalId: 1 },
  unique: true,
  partial: { externalId: { $exists: true } },
})
let w = 0
await measure('insertOne sequential', () => writes.insertOne({ ...record(++w), externalId: `w${w}` }))
await measure('insertOne concurrent (50 in flight)', () => writes.insertOne({ ...record(++w), externalId: `w${w}` }), {
  inFlight: 50,
  min: 2000,
})
await measure(
  'updateOne by _id, expectedHash (50 in flight)',
  async () => {
    const _id = pick(ids)
    const current = await items.findOne({ _id })
    await items
      .updateOne({ _id }, { $set: { name: 'renamed', _hash: newObjectId() } }, { expectedHash: current._hash })
      .catch(() => {})
  },
  { inFlight: 50, min: 2000 },
)

await measure('findOne by _id', () => items.findOne({ _id: pick(ids) }), { reads: true })
await measure(
  'findOne by _id, projection {_id: 1} (auth)',
  () => items.findOne({ _id: pick(ids) }, { projection: { _id: 1 } }),
  { reads: true },
)
await measure('findOne by externalId (partial unique)', (i) => items.findOne({ externalId: `e${(i * 2) % N}` }), {
  reads: true,
})
await measure('list 21, default order', () => items.find({}, { limit: 21 }), { reads: true })
await measure('list 21 after a random id', () => items.find({}, { limit: 21, after: pick(ids) }), { reads: true })
await measure(
  'filter+sort via compound index, limit 21',
  (i) => items.find({ category: `c${i % 10}` }, { sort: { price: -1 }, limit: 21 }),
  { reads: true },
)
await measure(
  'multikey find, limit 21, after',
  () => items.find({ environmentIds: `env${Math.floor(Math.random() * ENVS)}` }, { limit: 21, after: pick(ids) }),
  { reads: true },
)
await measure('count on multikey', (i) => items.count({ environmentIds: `env${i % ENVS}` }), { reads: true, min: 20 })
await measure('count on indexed equality', (i) => items.count({ category: `c${i % 10}` }), { reads: true, min: 20 })
await measure('count {}', () => items.count({}), { reads: true, min: 20 })

// Reads while an index over every record is built: a build that yields leaves them their turns. Reads go 50 at
// a time, then give the event loop a turn (as requests arriving over the network would).
const buildStart = Date.now()
const state = { built: false }
const building = items.ensureIndex({ name: 'name', fields: { name: 1 } }).then(() => {
  state.built = true
})
let during = 0
for (;;) {
  await new Promise((resolve) => setImmediate(resolve))
  if (state.built) break
  await Promise.all(Array.from({ length: 50 }, () => items.findOne({ _id: pick(ids) })))
  during += 50
}
await building
const buildSeconds = (Date.now() - buildStart) / 1000
console.log(
  `${'findOne by _id during an index build'.padEnd(46)} ${Math.round(during / buildSeconds)
    .toLocaleString('en-US')
    .padStart(9)} ops/s  (build of ${N.toLocaleString('en-US')} records ${buildSeconds.toFixed(2)} s)`,
)

await store.close()
rmSync(dir, { recursive: true, force: true })
