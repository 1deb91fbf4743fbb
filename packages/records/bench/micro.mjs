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

const CATALOG_N = Number(process.env.CATALOG_N ?? 100_000)
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), 'records-bench-'))
const store = openEmbeddedStore(dir)

const pick = (array) => array[Math.floor(Math.random() * array.length)]

/** Runs `op` with `inFlight` concurrent calls for about SECONDS seconds (at least `min` ops). */
async function measure(label, op, { inFlight = 1, min = 200, reads = false } = {}) {
  if (only && !only.test(label)) return
  const readsBefore = store.stats.reads
  let done = 0
  const cpuBefore = process.cpuUsage()
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
  const cpu = process.cpuUsage(cpuBefore)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  const perOp = reads ? `  reads/op ${((store.stats.reads - readsBefore) / done).toFixed(1)}` : ''
  const rate = (value) => Math.round(value).toLocaleString('en-US').padStart(9)
  console.log(`${label.padEnd(50)} ${rate(done / seconds)} ops/s ${rate(done / cpuSeconds)} ops/cpu-s${perOp}`)
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

/** Seeds `count` records of `make` into `collection` unless it holds them already. */
async function seed(collection, count, make) {
  const seedStart = Date.now()
  if ((await collection.count({})) < count) {
    for (let i = 0; i < count; i += 500) {
      const batch = []
      for (let j = i; j < Math.min(count, i + 500); j++) batch.push(collection.insertOne(make(j)))
      await Promise.all(batch)
    }
    console.log(`seeded ${count} records in ${((Date.now() - seedStart) / 1000).toFixed(1)} s (500 in flight)`)
  }
}
await seed(items, N, record)
const ids = (await items.findText({})).map((found) => found._id)

const catalog = store.collection('catalog')
await catalog.ensureIndex({ name: 'category', fields: { category: 1 } })
await seed(catalog, CATALOG_N, (i) => ({ ...record(i), category: `c${i % (CATALOG_N / 1000)}` }))

const writes = store.collection('writes')
await writes.ensureIndex({
  name: 'ext',
  fields: { externalId: 1 },
  unique: true,
  partial: { externalId: { $exists: true } },
})
let w = 0
await measure('insertOne sequential', () => writes.insertOne({ ...record(++w), externalId: `w${newObjectId()}` }))
await measure(
  'insertOne concurrent (50 in flight)',
  () => writes.insertOne({ ...record(++w), externalId: `w${newObjectId()}` }),
  {
    inFlight: 50,
    min: 2000,
  },
)
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
const categories = CATALOG_N / 1000
await measure(
  'catalog: index on category, sort price -1, limit 20',
  (i) => catalog.find({ category: `c${i % categories}` }, { sort: { price: -1 }, limit: 20 }),
  { reads: true, min: 20 },
)
await measure(
  'catalog: the same, next page (after a position)',
  (i) =>
    catalog.find(
      { category: `c${i % categories}` },
      { sort: { price: -1 }, limit: 20, after: { _id: 'ffffffffffffffffffffffff', price: 5000 } },
    ),
  { reads: true, min: 20 },
)
await measure('catalog: count on the category index (1k)', (i) => catalog.count({ category: `c${i % categories}` }), {
  reads: true,
  min: 20,
})

// Ranges on an indexed field: about 10 matches of a number range (and 20 of the newest dates) among N records.
const ranges = store.collection('ranges')
await ranges.ensureIndex({ name: 'price', fields: { price: 1 } })
await ranges.ensureIndex({ name: 'createdOn', fields: { createdOn: 1 } })
await ranges.ensureIndex({ name: 'category_price', fields: { category: 1, price: -1 } })
const day = Date.parse('2026-01-01')
await seed(ranges, N, (i) => ({
  ...record(i),
  price: (i * 7919) % N,
  createdOn: new Date(day + i * 60_000).toISOString(),
}))
const latest = new Date(day + (N - 20) * 60_000).toISOString()
await measure(
  'range: price in [p, p+10), limit 21',
  (i) => ranges.find({ price: { $gte: i % N, $lt: (i % N) + 10 } }, { limit: 21 }),
  {
    reads: true,
  },
)
await measure(
  'range: price >= p, sort price, limit 21',
  (i) => ranges.find({ price: { $gte: i % N } }, { sort: { price: 1 }, limit: 21 }),
  { reads: true },
)
await measure(
  'range: createdOn > the newest 20, limit 21',
  () => ranges.find({ createdOn: { $gt: latest } }, { limit: 21 }),
  {
    reads: true,
  },
)
await measure(
  'range: category c, price < p, sort price -1, limit 21',
  (i) => ranges.find({ category: `c${i % 10}`, price: { $lt: i % N } }, { sort: { price: -1 }, limit: 21 }),
  { reads: true },
)
await measure('range: count price in [p, p+100)', (i) => ranges.count({ price: { $gte: i % N, $lt: (i % N) + 100 } }), {
  reads: true,
  min: 20,
})

// Ranges on `_id`: paging by `{_id: {$gt: last}}` (the marketplace's listing), 10 ids, and the users' listing
// (an environment's members past the last one).
const rangeIds = (await ranges.findText({})).map((found) => found._id)
const idAt = (i) => rangeIds[(i * 7919) % (N - 10)]
await measure(
  'idrange: _id > a position, sort _id, limit 21',
  (i) => ranges.find({ _id: { $gt: idAt(i) } }, { sort: { _id: 1 }, limit: 21 }),
  { reads: true },
)
await measure(
  'idrange: _id in [a, a + 10 ids)',
  (i) => ranges.find({ _id: { $gte: idAt(i), $lt: rangeIds[((i * 7919) % (N - 10)) + 10] } }),
  { reads: true },
)
await measure(
  'idrange: environment + _id > a position, limit 21',
  (i) => items.find({ environmentIds: `env${i % ENVS}`, _id: { $gt: pick(ids) } }, { sort: { _id: 1 }, limit: 21 }),
  {
    reads: true,
  },
)

if (only) {
  await store.close()
  if (!process.env.BENCH_DIR) rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}

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
if (!process.env.BENCH_DIR) rmSync(dir, { recursive: true, force: true })
