// The records planner in-process, without HTTP: what each query shape costs the store itself, in CPU.
//
//   node bench/planner.mjs [--docs 100000] [--queries 3000] [--old <dir>]
//
// Seeds (once, kept under the OS temp dir) a collection of `--docs` records shaped as the documents service
// stores them, with single-field indexes on `category` and `price` and a unique one on `externalId`, about
// 1,000 records per category. Each scenario rotates its keys uniformly: 100 categories, 1,000 ids, ranges at
// 100 positions; each runs cold (the store just opened) and warm, with and without one write in ten (an
// update of one record's `score` and `category`, one in ten of them a create). `--old <dir>` names a copy of an earlier build of
// `@quire/records` (its `dist/` with a `node_modules` beside it): the same scenarios run on it in the same run,
// on a copy of the same data, and the table shows new ÷ old. The old build runs second: its cold figures
// find the data in the page cache already.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '3000' },
    old: { type: 'string' },
  },
})
const DOCS = Number(args.docs)
const QUERIES = Number(args.queries)
const CATEGORIES = Math.max(1, Math.round(DOCS / 1000))
/** Categories the filter rotates over, uniformly, whatever the store's size. */
const ROTATED = Math.min(100, CATEGORIES)
const NEW = new URL('../packages/records/dist/index.js', import.meta.url).href

/** The next record a create makes. */
let written = DOCS
const idOf = (i) => i.toString(16).padStart(24, '0')
const documentOf = (i) => ({
  _id: idOf(i),
  _createdOn: '2026-01-01T00:00:00.000Z',
  _createdByUserId: 'u-bench',
  _lastModifiedOn: '2026-01-01T00:00:00.000Z',
  _lastModifiedByUserId: 'u-bench',
  _documentDefinitionId: 'd-bench',
  _environmentId: 'default',
  externalId: `ext-${i}`,
  category: `c${i % CATEGORIES}`,
  price: (i * 7919) % 10_000,
  score: (i * 104_729) % 1_000_003,
  title: `Document ${i}`,
  tags: ['bench'],
  status: 'ready',
  accessGroups: [],
  _hash: `h${i}`,
})

/** A seeded data dir for `DOCS` records, made once and reused by later runs. */
async function seeded() {
  const dir = join(tmpdir(), `quire-planner-${DOCS}`)
  if (existsSync(join(dir, 'done'))) return dir
  rmSync(dir, { recursive: true, force: true })
  const { openEmbeddedStore } = await import(NEW)
  const store = openEmbeddedStore(dir)
  const items = store.collection('bench')
  await items.ensureIndex({ name: 'externalId', fields: { externalId: 1 }, unique: true })
  await items.ensureIndex({ name: 'category', fields: { category: 1 } })
  await items.ensureIndex({ name: 'price', fields: { price: 1 } })
  for (let from = 0; from < DOCS; from += 2000) {
    await store.transaction(async (tx) => {
      const into = tx.collection('bench')
      for (let i = from; i < Math.min(DOCS, from + 2000); i++) await into.insertOne(documentOf(i))
    })
  }
  await store.close()
  writeFileSync(join(dir, 'done'), '')
  return dir
}

/** The scenarios, each a function of the request's number; with `writes`, creates alone too. */
function scenarios(items, writes) {
  const sortedByScore = { sort: { score: -1 }, limit: 20 }
  return {
    ...(writes ? { 'create one': () => items.insertOne(documentOf(written++)) } : {}),
    'filter category + sort score': (n) => items.find({ category: `c${n % ROTATED}` }, sortedByScore),
    'get by _id': (n) => items.find({ _id: idOf((n * 7) % Math.min(DOCS, 1000)) }),
    'list 20, _id order': () => items.find({}, { limit: 20 }),
    'price range + sort price': (n) => {
      const low = (n % 100) * 100
      return items.find({ price: { $gte: low, $lt: low + 5 } }, { sort: { price: 1 }, limit: 20 })
    },
  }
}

/** One update of a record's `score` and `category` (moving it to another category), or a create. */
async function write(items, n) {
  if (n % 100 === 99) {
    await items.insertOne(documentOf(written++))
    return
  }
  const i = (n * 7_919) % DOCS
  await items.updateOne({ _id: idOf(i) }, { $set: { score: (n * 31) % 1_000_003, category: `c${n % ROTATED}` } })
}

const mb = (bytes) => Math.round(bytes / 2 ** 20)
/**
 * The most anonymous memory (the process's own, the kept sort values and ranges among it) and heap seen with a
 * store open. RSS counts the store's file-backed pages too: each page a query read, once.
 */
const memory = { anonMb: 0, heapMb: 0 }
function noteMemory() {
  const anon = Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024
  memory.anonMb = Math.max(memory.anonMb, mb(anon))
  memory.heapMb = Math.max(memory.heapMb, mb(process.memoryUsage().heapUsed))
}

/** CPU µs per query (user + system), and the wall-clock rate, over `count` queries run one after another. */
async function measure(run, items, count, writes) {
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let n = 0; n < count; n++) {
    if (writes && n % 10 === 9) await write(items, n)
    else await run(n)
  }
  const { user, system } = process.cpuUsage(cpu)
  return { cpuUs: (user + system) / count, perSecond: (count / (performance.now() - started)) * 1000 }
}

/** Every scenario, cold then warm, without and with writes, on a fresh copy of the seeded data. */
async function measureBuild(url, label, seededDir) {
  const { openEmbeddedStore } = await import(url)
  const results = new Map()
  for (const writes of [false, true]) {
    // Reads alone leave the seeded data as it was; writes go to a copy.
    const dir = writes ? mkdtempSync(join(tmpdir(), 'quire-planner-run-')) : seededDir
    if (writes) cpSync(join(seededDir, 'records'), join(dir, 'records'), { recursive: true })
    const store = openEmbeddedStore(dir)
    const items = store.collection('bench')
    for (const [name, run] of Object.entries(scenarios(items, writes))) {
      // Cold: the first pass over the keys after the open (100 categories, 100 ranges, 1,000 ids).
      const mixed = writes && name !== 'create one'
      const cold = await measure(run, items, name === 'get by _id' ? 1000 : 100, mixed)
      const warm = await measure(run, items, QUERIES, mixed)
      results.set(`${name}${mixed ? ', 1 write in 10' : ''}`, { cold, warm })
    }
    noteMemory()
    await store.close()
    if (writes) rmSync(dir, { recursive: true, force: true })
  }
  console.error(`measured ${label}`)
  return results
}

const seededDir = await seeded()
const fresh = await measureBuild(NEW, 'this build', seededDir)
const old = args.old ? await measureBuild(join(args.old, 'dist/index.js'), 'old build', seededDir) : undefined

const fmt = (n) => (n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(1))
console.log(
  `\n${DOCS.toLocaleString('en')} records, ${CATEGORIES} categories, ${ROTATED} rotated; CPU µs per request (req/s one at a time)\n`,
)
console.log(`| scenario | cold | warm |${old ? ' old cold | old warm | warm new ÷ old (CPU) |' : ''}`)
console.log(`|---|---:|---:|${old ? '---:|---:|---:|' : ''}`)
for (const [name, { cold, warm }] of fresh) {
  const cells = [`${fmt(cold.cpuUs)} (${fmt(cold.perSecond)})`, `${fmt(warm.cpuUs)} (${fmt(warm.perSecond)})`]
  const before = old?.get(name)
  if (before) {
    cells.push(`${fmt(before.cold.cpuUs)} (${fmt(before.cold.perSecond)})`)
    cells.push(`${fmt(before.warm.cpuUs)} (${fmt(before.warm.perSecond)})`)
    cells.push(`${(before.warm.cpuUs / warm.cpuUs).toFixed(2)}× faster`)
  }
  console.log(`| ${name} | ${cells.join(' | ')} |`)
}
console.log(
  `\npeak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB; with the stores open and warm, anonymous memory ${memory.anonMb} MB, heap used ${memory.heapMb} MB`,
)
