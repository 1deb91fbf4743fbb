// Quire against Parse Server 9 on PostgreSQL 15, measured in one run on the same data and indexes. Each scenario
// runs on a freshly started server (cold: the kernel's page cache dropped when root) and again after a warm-up,
// loaded by wrk from its own process with keys rotated per request. See BENCHMARKS.md.
//   node bench/run.mjs [--only get,filter,...] [--duration s] [--warmup s] [--documents n] [--quick] [--no-peer]
//                      [--profile scenario]
//   BENCH_SCALE=1000000 node bench/run.mjs [--scale-only]   (Quire alone at that size against a fresh 100,000)
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { PARSE_HEADERS, PARSE_VERSION, createPostgres, ensureParse, ensureWrk, freePort, startParse } from './peer.mjs'
import { summarizeProfile } from './profile.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    documents: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'no-peer': { type: 'boolean', default: false },
    'scale-only': { type: 'boolean', default: false },
    profile: { type: 'string', default: 'filter' },
  },
})
/** Seconds of each measured run (cold, then warm) and of the warm-up between them. */
const DURATION = Number(flags.duration ?? (flags.quick ? 3 : 10))
const WARMUP = Number(flags.warmup ?? (flags.quick ? 1 : 5))
const DOCUMENTS = Number(flags.documents ?? (flags.quick ? 20_000 : 100_000))
const SCALE = Number(process.env.BENCH_SCALE ?? 0)
const PEER = !flags['no-peer']
/**
 * Settings of a second Quire measured beside the first on the same store, e.g. `BENCH_VARIANT=QUIRE_PROCESSES=1`
 * (one process instead of the default): a change kept only if it wins in the same run.
 */
const VARIANT = process.env.BENCH_VARIANT ?? ''
const variantEnv = Object.fromEntries(
  VARIANT.split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
)
const CONNECTIONS = 50
/** Documents per category whatever the store's size, so a category's query reads as many at 100,000 as at 1M. */
const PER_CATEGORY = 1000
/** Keys rotated per scenario: filter values, range positions, ids. */
const CATEGORIES = 100
const RANGES = 100
const IDS = 1000
/** The import: documents per bulk call and calls in flight. */
const BULK = { size: 100, inFlight: 2 }
const ADMIN = { username: 'admin', password: 'bench-password-1' }
const GATEWAY = join(ROOT, 'apps/gateway/dist/server.js')

/**
 * The two collections on both servers. `externalId` is unique on both (Quire's own partial unique index; Parse:
 * SQL below), `bench` adds `category` and `price`, `compound` holds the same data with `{category: 1, score: -1}`.
 */
const COLLECTIONS = {
  bench: { parse: 'Bench', quire: [{ fields: { category: 1 } }, { fields: { price: 1 } }] },
  compound: { parse: 'Compound', quire: [{ fields: { category: 1, score: -1 } }] },
}
const PARSE_INDEXES = [
  'CREATE UNIQUE INDEX bench_external_id ON "Bench" ("externalId")',
  'CREATE INDEX bench_category ON "Bench" ("category")',
  'CREATE INDEX bench_price ON "Bench" ("price")',
  'CREATE UNIQUE INDEX compound_external_id ON "Compound" ("externalId")',
  'CREATE INDEX compound_category_score ON "Compound" ("category", "score" DESC)',
]

const categoryCount = (total) => Math.max(1, Math.round(total / PER_CATEGORY))
const benchDocument = (total) => (i) => ({
  externalId: `ext-${i}`,
  category: `c${i % categoryCount(total)}`,
  price: (i * 7919) % 10_000,
  score: (i * 104_729) % 1_000_003,
  title: `Document ${i}`,
  tags: ['bench'],
})

const children = new Set()
/** PostgreSQL runs detached (pg_ctl): stopped on the way out however the run ends. */
const clusters = new Set()
process.on('exit', () => {
  children.forEach((child) => child.kill('SIGKILL'))
  clusters.forEach((cluster) => cluster.destroy())
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(1))

/**
 * Starts Quire on a port of our choosing and resolves once `/ready` answers and it is idle: with several processes
 * the first answers while the others still start (`idle` counts them all). Its log goes to /dev/null, as Parse's
 * does: a pipe to this process could fill while the bench is busy and stall the server's synchronous log writes.
 */
async function start(env, nodeArgs = []) {
  const port = await freePort()
  const child = spawn(process.execPath, [...nodeArgs, GATEWAY], {
    env: { PATH: process.env.PATH, ...env, QUIRE_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  children.add(child)
  sampleAnonymous(child)
  const url = `http://127.0.0.1:${port}`
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${url}/ready`)).ok) break
    } catch {}
    await sleep(100)
  }
  await idle(child)
  return { child, url }
}

async function stop(child) {
  if (!child || child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  children.delete(child)
}

/** Cold means read from disk, as after a restart of the machine: possible as root only. */
let pageCacheDropped = true
function dropPageCache() {
  try {
    execFileSync('sync')
    writeFileSync('/proc/sys/vm/drop_caches', '3')
  } catch {
    pageCacheDropped = false
  }
}

const statusKb = (pid, field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1])

/** The server's processes: the one started and, when it runs several (`QUIRE_PROCESSES`), those it forked. */
const pidsOf = (child) => [
  child.pid,
  ...readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
]
/** The largest of a status field over the server's processes: the memory of one process is what is bounded. */
const largestKb = (child, field) => Math.max(...pidsOf(child).map((pid) => statusKb(pid, field)))

/**
 * VmHWM counts the store's file pages the server mapped: clean, shared with the page cache, reclaimable, and with
 * the file cached (a long-running server, the read ahead at start) the kernel maps the cached pages around each
 * page read too. The anonymous part (heap, buffers) is what the process itself holds: sampled, Linux keeps no peak.
 */
function sampleAnonymous(child) {
  child.anonymousPeakKb = 0
  const timer = setInterval(() => {
    try {
      child.anonymousPeakKb = Math.max(child.anonymousPeakKb, largestKb(child, 'RssAnon'))
    } catch {
      // Exited since the last tick: its peak is in already.
    }
  }, 200).unref()
  child.once('exit', () => clearInterval(timer))
}

/** The peak RSS (VmHWM) and the peak anonymous RSS sampled, in MB, of the server's largest process. */
const peakRss = (child) => ({
  total: largestKb(child, 'VmHWM') / 1024,
  anonymous: Math.max(child.anonymousPeakKb, largestKb(child, 'RssAnon')) / 1024,
})
const memory = (rss) => `${rss.total.toFixed(0)} MB (${rss.anonymous.toFixed(0)} MB anonymous)`

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The CPU time (clock ticks, 1/100 s) the server's processes have used: utime and stime of /proc/PID/stat. */
function cpuTicks(child) {
  let ticks = 0
  for (const pid of pidsOf(child)) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks
}

/**
 * Resolves once the server has stayed idle (under 5% of a core) for a second, or after 10 minutes: the import's
 * housekeeping (the change log trimmed to its bound, at most a fifth of the loop) runs to its end before any
 * scenario, as Parse's ANALYZE does. Resolves to the seconds waited.
 */
async function idle(child) {
  const started = performance.now()
  let before = cpuTicks(child)
  while (performance.now() - started < 600_000) {
    await sleep(1000)
    const now = cpuTicks(child)
    if (now - before < 5) break
    before = now
  }
  return (performance.now() - started) / 1000
}

async function call(url, method, path, headers, body) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(new URL(path, url), {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const json = await res.json()
    if (res.ok) return json
    // The overload guard may shed a seed call on a busy machine: it asks to come back later.
    if (res.status !== 503 || attempt === 20) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    }
    await sleep(1000)
  }
}

/**
 * Quire's all-in-one server on a data folder of its own. `start` drops the page cache first (cold) and signs in
 * again, since a full run outlasts an access token.
 */
function quire(label, { dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-')), extraEnv = {} } = {}) {
  const env = {
    QUIRE_HOST: '127.0.0.1',
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    ...extraEnv,
    QUIRE_DATA_DIR: dataDir,
  }
  const core = (collection) => `/api/v2/document-definitions/${collection}/documents`
  const q = (value) => encodeURIComponent(JSON.stringify(value))
  const target = {
    name: label,
    env,
    async start({ cold = true, nodeArgs } = {}) {
      await stop(target.child)
      if (cold) dropPageCache()
      Object.assign(target, await start(env, nodeArgs))
      const { data } = await call(target.url, 'POST', '/auth/login', {}, ADMIN)
      target.headers = { authorization: `Bearer ${data.accessToken}`, 'environment-id': 'default' }
    },
    stop: () => stop(target.child),
    async settle() {
      // Started again: a start sweeps at once, where the running server's next sweep is up to a minute away.
      await target.start({ cold: false })
      console.error(`${label}: idle ${(await idle(target.child)).toFixed(0)} s after the import`)
    },
    destroy: async () => {
      await stop(target.child)
      rmSync(env.QUIRE_DATA_DIR, { recursive: true, force: true })
    },
    async setup(collection, environment = 'default') {
      const headers = { ...target.headers, 'environment-id': environment }
      const indexes = COLLECTIONS[collection].quire
      await call(target.url, 'POST', '/api/v2/document-definitions', headers, { name: collection, indexes })
    },
    async bulk(collection, bodies, environment = 'default') {
      const operations = bodies.map((body) => ({ op: 'create', body }))
      const headers = { ...target.headers, 'environment-id': environment }
      const { data } = await call(target.url, 'POST', `${core(collection)}/bulk`, headers, { operations })
      return data.map((result) => result._id)
    },
    get: (collection, id) => ({ method: 'GET', path: `${core(collection)}/${id}` }),
    list: (collection) => ({ method: 'GET', path: `${core(collection)}?limit=20` }),
    filter: (collection, category) => ({
      method: 'GET',
      path: `${core(collection)}?limit=20&query=${q({ category })}&sort=${q({ score: -1 })}`,
    }),
    range: (collection, p) => ({
      method: 'GET',
      path: `${core(collection)}?limit=20&query=${q({ price: { $gte: p, $lt: p + 5 } })}&sort=${q({ price: 1 })}`,
    }),
    create: (collection, body) => ({ method: 'POST', path: `${core(collection)}/new`, body }),
    update: (collection, id, fields) => ({ method: 'PATCH', path: `${core(collection)}/${id}`, body: fields }),
  }
  return target
}

/** Parse Server on its own PostgreSQL cluster: `start` restarts both, the page cache dropped between (cold). */
async function parse() {
  const entry = ensureParse()
  const postgres = await createPostgres()
  clusters.add(postgres)
  const classes = (collection) => `/parse/classes/${COLLECTIONS[collection].parse}`
  const q = (value) => encodeURIComponent(JSON.stringify(value))
  const target = {
    name: `Parse ${PARSE_VERSION}`,
    headers: PARSE_HEADERS,
    async start({ cold = true } = {}) {
      await stop(target.child)
      if (cold) {
        postgres.restart()
        dropPageCache()
      }
      const server = await startParse(entry, postgres)
      children.add(server.child)
      Object.assign(target, server)
    },
    stop: () => stop(target.child),
    async destroy() {
      await stop(target.child)
      postgres.destroy()
      clusters.delete(postgres)
    },
    async setup(collection) {
      const fields = {
        externalId: { type: 'String' },
        category: { type: 'String' },
        price: { type: 'Number' },
        score: { type: 'Number' },
        title: { type: 'String' },
        tags: { type: 'Array' },
      }
      const className = COLLECTIONS[collection].parse
      await call(target.url, 'POST', `/parse/schemas/${className}`, PARSE_HEADERS, { className, fields })
      for (const statement of PARSE_INDEXES.filter((s) => s.includes(`"${className}"`))) postgres.sql(statement)
    },
    async bulk(collection, bodies) {
      const requests = bodies.map((body) => ({ method: 'POST', path: classes(collection), body }))
      const answers = await call(target.url, 'POST', '/parse/batch', PARSE_HEADERS, { requests })
      return answers.map((answer) => {
        if (!answer.success) throw new Error(`parse batch: ${JSON.stringify(answer)}`)
        return answer.success.objectId
      })
    },
    /** Fresh statistics once seeded, so PostgreSQL's planner knows the indexes are worth using. */
    settle: () => postgres.sql('ANALYZE'),
    get: (collection, id) => ({ method: 'GET', path: `${classes(collection)}/${id}` }),
    list: (collection) => ({ method: 'GET', path: `${classes(collection)}?limit=20` }),
    filter: (collection, category) => ({
      method: 'GET',
      path: `${classes(collection)}?limit=20&where=${q({ category })}&order=-score`,
    }),
    range: (collection, p) => ({
      method: 'GET',
      path: `${classes(collection)}?limit=20&where=${q({ price: { $gte: p, $lt: p + 5 } })}&order=price`,
    }),
    create: (collection, body) => ({ method: 'POST', path: classes(collection), body }),
    update: (collection, id, fields) => ({ method: 'PUT', path: `${classes(collection)}/${id}`, body: fields }),
  }
  return target
}

function progress(label, done, total) {
  const width = 30
  const filled = Math.round((done / total) * width)
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`)
  if (done === total) process.stderr.write('\n')
}

/** Imports `total` documents through bulk calls; resolves with their ids in order and the rate in documents/s. */
async function seed(target, collection, total, { size = BULK.size, inFlight = BULK.inFlight, environment } = {}) {
  const make = benchDocument(total)
  const ids = new Array(total)
  let next = 0
  let done = 0
  const began = performance.now()
  const worker = async () => {
    while (next < total) {
      const from = next
      next = Math.min(total, from + size)
      const bodies = []
      for (let i = from; i < next; i++) bodies.push(make(i))
      const created = await target.bulk(collection, bodies, environment)
      created.forEach((id, offset) => (ids[from + offset] = id))
      done += created.length
      if (done % 10_000 < size || done === total) progress(`${target.name}: ${collection}`, done, total)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  return { ids, rate: total / ((performance.now() - began) / 1000) }
}

let runs = 0
/** One wrk run of `seconds` over `requests`, rotated per request. */
function wrk(target, requests, seconds, connections = CONNECTIONS) {
  const file = join(tmpdir(), `quire-bench-requests-${process.pid}-${runs++}.tsv`)
  const line = ({ method, path, body }) => [method, path, ...(body ? [JSON.stringify(body)] : [])].join('\t')
  writeFileSync(file, requests.map(line).join('\n') + '\n')
  const headers = Object.entries({ ...target.headers, 'content-type': 'application/json' }).flatMap(([name, value]) => [
    '-H',
    `${name}: ${value}`,
  ])
  const args = ['-t2', `-c${connections}`, `-d${seconds}s`, '--timeout', '30s', ...headers]
  args.push('-s', join(ROOT, 'bench/rotate.lua'), target.url, '--', file)
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.once('exit', (code) => {
      rmSync(file, { force: true })
      const last = out.trim().split('\n').at(-1)
      if (code !== 0 || !last.startsWith('{')) return reject(new Error(`wrk exited ${code}: ${out}`))
      const r = JSON.parse(last)
      resolve({
        rps: r.requests / (r.durationUs / 1e6),
        p50: r.p50Us / 1000,
        p99: r.p99Us / 1000,
        failed: r.non2xx + r.socketErrors + r.timeouts,
      })
    })
  })
}

/** Autocannon from its own process (`load.mjs`), for the neighbours: it counts answers by status. */
function autocannon(scenario) {
  const file = join(tmpdir(), `quire-bench-load-${process.pid}-${runs++}.json`)
  writeFileSync(file, JSON.stringify(scenario))
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bench/load.mjs'), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.once('exit', (code) => {
      rmSync(file, { force: true })
      if (code === 0) resolve(JSON.parse(out))
      else reject(new Error(`load exited ${code}`))
    })
  })
}

const spread = (values, n) => Array.from({ length: n }, (_, i) => values[Math.floor((i * values.length) / n)])
const categories = (total) => spread([...Array(categoryCount(total)).keys()], CATEGORIES).map((i) => `c${i}`)
const positions = Array.from({ length: RANGES }, (_, i) => i * 99)

/**
 * The scenarios in the order they run: the writes last, so that every read sees the store as seeded. `make`
 * builds one server's rotation from its own ids (`data.ids`, 1,000 of the seeded documents).
 */
const SCENARIOS = [
  { key: 'get', name: 'get one by `_id`, 1,000 ids rotated', make: (t, d) => d.ids.map((id) => t.get('bench', id)) },
  { key: 'list', name: 'list 20, default order', make: (t) => [t.list('bench')] },
  {
    key: 'filter',
    name: 'list 20, `query` on `category` (single-field index), `sort` on `score`, 100 categories rotated',
    make: (t, d) => d.categories.map((c) => t.filter('bench', c)),
  },
  {
    key: 'compound',
    name: 'the same with a compound index `{category: 1, score: -1}`',
    make: (t, d) => d.categories.map((c) => t.filter('compound', c)),
  },
  {
    key: 'range',
    name: 'list 20, `price` in `[p, p+5)` sorted by `price`, 100 positions',
    make: (t) => positions.map((p) => t.range('bench', p)),
  },
  {
    key: 'update',
    name: 'update one field by id, 1,000 ids rotated',
    make: (t, d) => d.ids.map((id, i) => t.update('bench', id, { price: i })),
  },
  {
    key: 'mixed',
    name: 'mixed: the single-index query, one update of `score` in ten',
    make: (t, d) =>
      d.ids.map((id, i) =>
        i % 10 === 9 ? t.update('bench', id, { score: i }) : t.filter('bench', d.categories[i % d.categories.length]),
      ),
  },
  {
    key: 'create',
    name: 'create one (durable), 100 categories rotated',
    make: (t, d) =>
      d.categories.map((category, i) => t.create('bench', { category, price: i, score: i, title: 'new' })),
  },
]
const ONLY = new Set(flags.only ? flags.only.split(',') : [...SCENARIOS.map((s) => s.key), 'fair', 'profile'])

/** Cold (the first run on a fresh start), then warm (after a warm-up). */
async function coldAndWarm(target, requests) {
  await target.start()
  const cold = await wrk(target, requests, DURATION)
  await wrk(target, requests, WARMUP)
  const warm = await wrk(target, requests, DURATION)
  return { cold, warm, rss: peakRss(target.child) }
}

const fmt = (r) => `${Math.round(r.rps)} req/s (p99 ${r.p99.toFixed(0)} ms)${r.failed ? `, ${r.failed} failed` : ''}`

/** Seeds a server with both collections; resolves with the data its scenarios rotate over and the import rate. */
async function seeded(target, total) {
  await target.start({ cold: false })
  const imported = {}
  for (const collection of Object.keys(COLLECTIONS)) {
    await target.setup(collection)
    imported[collection] = await seed(target, collection, total)
  }
  // The import's peak, before Quire's settling starts it again.
  const seedRss = peakRss(target.child)
  await target.settle()
  const { ids, rate } = imported.bench
  console.error(`${target.name}: import ${Math.round(rate)} documents/s`)
  return { ids: spread(ids, IDS), categories: categories(total), importRate: rate, seedRss }
}

async function main() {
  ensureWrk()
  const selected = SCENARIOS.filter((s) => ONLY.has(s.key))
  const measured = flags['scale-only'] ? {} : await sideBySide(selected)
  const scale = SCALE ? await scaleRun(selected) : undefined
  report({ ...measured, scale })
}

/** Quire (and its variant) beside Parse, scenario by scenario; then fair share and the profile, on Quire alone. */
async function sideBySide(selected) {
  const rows = []
  const own = quire('Quire')
  const peer = PEER ? await parse() : undefined
  const ownData = await seeded(own, DOCUMENTS)
  const peerData = peer && (await seeded(peer, DOCUMENTS))
  // The variant runs on the same store as Quire (never both at once), so it rotates over the same ids.
  const variant = VARIANT && quire(`Quire, ${VARIANT}`, { dataDir: own.env.QUIRE_DATA_DIR, extraEnv: variantEnv })
  const arms = [
    ['own', own, ownData],
    ['variant', variant, ownData],
    ['peer', peer, peerData],
  ].filter(([, target]) => target)
  for (const scenario of selected) {
    const row = { scenario }
    for (const [arm, target, data] of arms) {
      row[arm] = await coldAndWarm(target, scenario.make(target, data))
      await target.stop()
      console.error(
        `${scenario.key.padEnd(9)} ${target.name.padEnd(14)} cold ${fmt(row[arm].cold)}  warm ${fmt(row[arm].warm)}`,
      )
    }
    rows.push(row)
  }
  await peer?.destroy()
  const fair = ONLY.has('fair') ? await fairShare(own, ownData) : undefined
  const profile = ONLY.has('profile') ? await cpuProfile(own, ownData) : undefined
  await own.destroy()
  const imports = [ownData.importRate, peerData?.importRate]
  return { rows, peer: peer?.name, variant: variant?.name, imports, fair, profile }
}

/**
 * Environment A's get by id alone, with one neighbour environment and with two, each neighbour a caller keeping
 * four single-index queries in flight (autocannon, 4 connections) over its own copy of the data. The conditions
 * run in the order 0 1 2 2 1 0 so that the machine's drift weighs on each alike.
 */
async function fairShare(target, data) {
  await target.start()
  const neighbours = ['neighbour-1', 'neighbour-2']
  for (const environment of neighbours) {
    await call(target.url, 'POST', '/api/v2/environments', target.headers, { _id: environment, name: environment })
    await target.setup('bench', environment)
    await seed(target, 'bench', DOCUMENTS, { size: 1000, inFlight: 4, environment })
  }
  const gets = data.ids.map((id) => target.get('bench', id))
  const queries = data.categories.map((c) => target.filter('bench', c))
  await wrk(target, gets, WARMUP)
  const seconds = Math.max(1, Math.round(DURATION / 2))
  const byCount = [[], [], []]
  for (const count of [0, 1, 2, 2, 1, 0]) {
    const loads = neighbours.slice(0, count).map((environment) =>
      autocannon({
        url: target.url,
        connections: 4,
        duration: seconds + 2,
        method: 'GET',
        headers: { ...target.headers, 'environment-id': environment },
        requests: queries,
      }),
    )
    if (count) await sleep(1000)
    const own = await wrk(target, gets, seconds)
    byCount[count].push({ own, neighbours: await Promise.all(loads) })
  }
  await target.stop()
  const rows = byCount.map((measured) => {
    const statuses = {}
    for (const { neighbours: loads } of measured) {
      for (const load of loads) {
        for (const [code, n] of Object.entries(load.statuses)) statuses[code] = (statuses[code] ?? 0) + n
      }
    }
    return {
      rps: measured.reduce((sum, m) => sum + m.own.rps, 0) / measured.length,
      p99: Math.max(...measured.map((m) => m.own.p99)),
      failed: measured.reduce((sum, m) => sum + m.own.failed, 0),
      neighbourRps: measured.reduce((sum, m) => sum + m.neighbours.reduce((s, l) => s + l.rps, 0), 0) / measured.length,
      statuses,
    }
  })
  for (const [count, row] of rows.entries()) {
    console.error(
      `fair share, ${count} neighbour(s): ${fmt(row)}, neighbours ${row.neighbourRps.toFixed(0)} req/s ${JSON.stringify(row.statuses)}`,
    )
  }
  return rows
}

/** A CPU profile of the server (`node --cpu-prof`) during a warm scenario (`--profile`, the filter + sort's). */
async function cpuProfile(target, data) {
  const dir = mkdtempSync(join(tmpdir(), 'quire-bench-profile-'))
  const requests = SCENARIOS.find((s) => s.key === flags.profile).make(target, data)
  await target.start({ nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir] })
  await wrk(target, requests, WARMUP)
  const during = await wrk(target, requests, DURATION)
  await target.stop()
  const [file] = readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))
  const summary = summarizeProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')), { root: ROOT, seconds: DURATION })
  rmSync(dir, { recursive: true, force: true })
  return { during, summary }
}

/**
 * Quire alone at `BENCH_SCALE` documents against a fresh store of `DOCUMENTS`, both servers up: per scenario,
 * both started cold and warmed up, then measured in the order small, large, large, small.
 */
async function scaleRun(selected) {
  const small = quire(`Quire ${DOCUMENTS}`)
  const large = quire(`Quire ${SCALE}`)
  const smallData = await seeded(small, DOCUMENTS)
  const largeData = await seeded(large, SCALE)
  const rows = []
  for (const scenario of selected) {
    const requests = [scenario.make(small, smallData), scenario.make(large, largeData)]
    await small.start()
    await large.start({ cold: false })
    await wrk(small, requests[0], WARMUP)
    await wrk(large, requests[1], WARMUP)
    const half = Math.max(1, Math.round(DURATION / 2))
    const measured = [[], []]
    for (const which of [0, 1, 1, 0]) measured[which].push(await wrk([small, large][which], requests[which], half))
    const rate = (list) => list.reduce((sum, r) => sum + r.rps, 0) / list.length
    const row = {
      scenario,
      small: { rps: rate(measured[0]), p99: Math.max(...measured[0].map((r) => r.p99)) },
      large: { rps: rate(measured[1]), p99: Math.max(...measured[1].map((r) => r.p99)) },
      rss: peakRss(large.child),
    }
    rows.push(row)
    console.error(`scale ${scenario.key.padEnd(9)} ${fmt(row.small)} / ${fmt(row.large)}, rss ${memory(row.rss)}`)
    await small.stop()
    await large.stop()
  }
  await small.destroy()
  await large.destroy()
  return { rows, imports: [smallData.importRate, largeData.importRate], seedRss: largeData.seedRss }
}

function report({ rows, peer, variant, imports, fair, profile, scale }) {
  const cell = (r) =>
    `${Math.round(r.rps).toLocaleString('en')} (${r.p99.toFixed(0)} ms)${r.failed ? ` ⚠ ${r.failed} failed` : ''}`
  const ratio = (a, b) => (b ? `${(a.rps / b.rps).toFixed(2)}×` : '—')
  const out = []
  out.push(
    `\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}. wrk, ${CONNECTIONS} connections, ${DURATION} s per run (warm-up ${WARMUP} s), ${DOCUMENTS.toLocaleString('en')} documents; cold = first run after a fresh start${pageCacheDropped ? ', page cache dropped' : ' (page cache kept: not root)'}.`,
  )
  if (rows) {
    const other = peer ?? 'peer'
    out.push(
      `\n| scenario | Quire cold req/s (p99) | ${other} cold | ratio | Quire warm | ${other} warm | ratio | Quire peak RSS |`,
    )
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const { scenario, own, peer: them } of rows) {
      out.push(
        `| ${scenario.name} | ${cell(own.cold)} | ${them ? cell(them.cold) : '—'} | ${ratio(own.cold, them?.cold)} | ${cell(own.warm)} | ${them ? cell(them.warm) : '—'} | ${ratio(own.warm, them?.warm)} | ${memory(own.rss)} |`,
      )
    }
    const [ownImport, peerImport] = imports
    const rate = (value) => `${Math.round(value).toLocaleString('en')} docs/s`
    out.push(
      `| import ${DOCUMENTS.toLocaleString('en')} through bulk, ${BULK.size} per call, ${BULK.inFlight} in flight | ${rate(ownImport)} | ${peerImport ? rate(peerImport) : '—'} | ${peerImport ? `${(ownImport / peerImport).toFixed(2)}×` : '—'} | | | | |`,
    )
  }
  if (variant) {
    out.push(`\n| scenario | Quire cold | ${variant} cold | ratio | Quire warm | ${variant} warm | ratio |`)
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const { scenario, own, variant: theirs } of rows) {
      out.push(
        `| ${scenario.name} | ${cell(own.cold)} | ${cell(theirs.cold)} | ${ratio(theirs.cold, own.cold)} | ${cell(own.warm)} | ${cell(theirs.warm)} | ${ratio(theirs.warm, own.warm)} |`,
      )
    }
  }
  if (fair) {
    const [alone] = fair
    out.push('\n| get by `_id` in environment A | req/s (p99) | of alone | neighbours req/s | neighbours answers |')
    out.push('| --- | ---: | ---: | ---: | --- |')
    for (const [count, row] of fair.entries()) {
      const who = ['alone', 'while another environment keeps', 'while two other environments keep'][count]
      out.push(
        `| ${who}${count ? ' four single-index queries in flight' : ''} | ${cell(row)} | ${(row.rps / alone.rps).toFixed(2)} | ${count ? row.neighbourRps.toFixed(0) : ''} | ${
          count
            ? Object.entries(row.statuses)
                .map(([code, n]) => `${code}: ${n}`)
                .join(', ')
            : ''
        } |`,
      )
    }
  }
  if (profile) {
    out.push(
      `\nCPU profile of the server during the warm \`${flags.profile}\` scenario (${cell(profile.during)}, profiler on):`,
    )
    out.push(profile.summary)
  }
  if (scale) {
    out.push(
      `\n| scenario (Quire alone, warm, same rounds) | ${DOCUMENTS.toLocaleString('en')} | ${SCALE.toLocaleString('en')} | ratio | peak RSS at ${SCALE.toLocaleString('en')} |`,
    )
    out.push('| --- | ---: | ---: | ---: | ---: |')
    for (const row of scale.rows) {
      out.push(
        `| ${row.scenario.name} | ${cell(row.small)} | ${cell(row.large)} | ${ratio(row.large, row.small)} | ${memory(row.rss)} |`,
      )
    }
    const [a, b] = scale.imports
    out.push(
      `| import through bulk | ${Math.round(a)} docs/s | ${Math.round(b)} docs/s | ${(b / a).toFixed(2)}× | ${memory(scale.seedRss)} while importing |`,
    )
  }
  console.log(out.join('\n'))
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
