// Quire's benchmarks, run the way users run Quire: the built all-in-one server (embedded storage, logging at
// the production level `info`) in its own process, seeded over HTTP, loaded by autocannon from another process,
// next to a bare Fastify hello-world as the ceiling, alternating with each scenario in short rounds (the machine's
// speed drifts by a third within one run, so each ratio pairs a scenario with its own ceiling).
//   npm run bench            (BENCH_DURATION=seconds per scenario, BENCH_ROUNDS, BENCH_DOCUMENTS=documents to seed,
//                             BENCH_SCALE=more store sizes for the core scenarios, e.g. 100000,1000000)
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 100_000)
/**
 * Store sizes the core scenarios run at (get, list, filter + sort with either index, count, create): each larger
 * one against the smallest, in the same rounds (`scaleScenarios`). Every scenario runs at `BENCH_DOCUMENTS`.
 */
const SCALES = [
  ...new Set([DOCUMENTS, ...(process.env.BENCH_SCALE ?? '').split(',').filter(Boolean).map(Number)]),
].sort((a, b) => a - b)
const CONNECTIONS = 50
/** Each scenario's time is split into this many rounds, alternating with the ceiling (see `measure`); one for
 * scenarios whose requests take a large part of a second. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const ADMIN = { username: 'admin', password: 'bench-password-1' }
/**
 * The definition's indexes: one on `category` alone (a filter on it with a sort on `score`, the case most users
 * write first) and a compound one that serves a filter on `category` with a sort on `price` in its own order.
 */
const INDEXES = [{ fields: { category: 1 } }, { fields: { category: 1, price: -1 } }]
/** Documents per category: about a thousand whatever the store's size, as in the issue's data (issue 22). */
const PER_CATEGORY = 1000
/** The body of every create, in the create scenario and in the POST floors that bound it. */
const CREATE_BODY = JSON.stringify({ category: 'c1', price: 5, title: 'new' })
const JSON_HEADERS = { 'content-type': 'application/json' }
const children = new Set()
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')))

/** Starts a process and resolves with its port once its output names it. */
function start(script, env = {}) {
  const child = spawn(process.execPath, [script], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.add(child)
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening (?:at http:\/\/127\.0\.0\.1:)?(\d+)/i.exec(line)
      if (match) resolve({ child, port: Number(match[1]), url: `http://127.0.0.1:${match[1]}` })
    })
  })
}

async function stop({ child }) {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  children.delete(child)
}

/**
 * Whether the kernel's page cache is dropped before a server starts on a seeded store (root only): the server then
 * reads the store from disk, as after a restart of its machine, instead of finding every page the import wrote
 * still cached, and its RSS shows the pages its reads need (lmdb's map counts in RSS only where it is read).
 */
let pageCacheDropped = true
function dropPageCache() {
  try {
    writeFileSync('/proc/sys/vm/drop_caches', '1')
  } catch {
    pageCacheDropped = false
  }
}

/** Peak resident memory since the last reset, from the kernel (VmHWM); the reset starts each scenario afresh. */
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5')
const peakRss = (pid) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024
/** Private memory now (heap, buffers), without the file pages of lmdb's memory map that RSS also counts. */
const anonRss = (pid) => Number(/RssAnon:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024

let scenarios = 0
function load(scenario) {
  const file = join(tmpdir(), `quire-bench-scenario-${process.pid}-${scenarios++}.json`)
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

const results = []
let hello
const HELLO = { method: 'GET', requests: [{ path: '/' }] }

/**
 * Loads `server` for `duration` seconds; peak RSS counts from the last `resetPeak`. The kernel keeps no peak of
 * private memory alone, so it is sampled meanwhile.
 */
async function run(server, scenario, duration) {
  const pid = server.child.pid
  let anonPeak = anonRss(pid)
  const sampler = setInterval(() => (anonPeak = Math.max(anonPeak, anonRss(pid))), 100)
  try {
    const r = await load({ ...scenario, url: server.url, connections: scenario.connections ?? CONNECTIONS, duration })
    return { ...r, rssMb: peakRss(pid), anonMb: Math.max(anonPeak, anonRss(pid)) }
  } finally {
    clearInterval(sampler)
  }
}

/** Bytes the files under `dir` take on disk (allocated blocks, as `du` counts them). */
function diskUsage(dir) {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    bytes += entry.isDirectory() ? diskUsage(path) : statSync(path).blocks * 512
  }
  return bytes
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length

/**
 * Measures `scenario` on `server` against the hello-world in short rounds after a warm-up of each, since the
 * machine's speed drifts within seconds. The order alternates from round to round, so that neither side always
 * runs first, and the ratio is of the summed rates. With `compare`, another server's
 * scenario runs in every round too, and the scenario's rate is also given as a ratio to it.
 */
async function measure(name, server, scenario, compare, scale = DOCUMENTS) {
  const arms = [{ server: hello, scenario: HELLO }, { server, scenario }, ...(compare ? [compare] : [])]
  for (const arm of arms) await run(arm.server, arm.scenario, 2)
  resetPeak(server.child.pid)
  if (compare) resetPeak(compare.server.child.pid)
  const rounds = scenario.rounds ?? ROUNDS
  const duration = (scenario.duration ?? DURATION) / rounds
  const measured = arms.map(() => [])
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? arms.keys() : [...arms.keys()].reverse()
    for (const arm of order) measured[arm].push(await run(arms[arm].server, arms[arm].scenario, duration))
  }
  const [ceilings, own, other] = measured
  const rate = (runs) => mean(runs.map((r) => r.rps))
  const statuses = {}
  for (const r of own) {
    for (const [code, count] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + count
  }
  const row = {
    name,
    scale,
    rps: rate(own),
    ceiling: rate(ceilings),
    ratio: rate(own) / rate(ceilings),
    ...(other
      ? {
          compared: rate(own) / rate(other),
          comparedWith: compare.name,
          other: {
            ratio: rate(other) / rate(ceilings),
            p99: Math.max(...other.map((r) => r.p99)),
            rssMb: Math.max(...other.map((r) => r.rssMb)),
            anonMb: Math.max(...other.map((r) => r.anonMb)),
          },
        }
      : {}),
    p50: median(own.map((r) => r.p50)),
    p99: Math.max(...own.map((r) => r.p99)),
    rssMb: Math.max(...own.map((r) => r.rssMb)),
    anonMb: Math.max(...own.map((r) => r.anonMb)),
    non2xx: own.reduce((sum, r) => sum + r.non2xx, 0),
    errors: own.reduce((sum, r) => sum + r.errors, 0),
    statuses,
  }
  results.push(row)
  console.error(
    `${SCALES.length > 1 ? `[${scale}] ` : ''}${name.padEnd(52)} ${row.rps.toFixed(0).padStart(7)} req/s  p50 ${row.p50} ms  p99 ${row.p99} ms  rss ${row.rssMb.toFixed(0)} MB (anon ${row.anonMb.toFixed(0)} MB)  ceiling ${row.ceiling.toFixed(0)}  ratio ${row.ratio.toFixed(3)}${compare ? `  (${row.compared.toFixed(2)} × ${row.comparedWith})` : ''}${row.non2xx || row.errors ? `  (statuses ${JSON.stringify(row.statuses)}, errors ${row.errors})` : ''}`,
  )
}

async function api(base, method, path, token, body, environment = 'default') {
  const res = await fetch(new URL(path, base), {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}`, 'environment-id': environment } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  })
  const json = await res.json()
  if (!res.ok) {
    const { status } = res
    throw Object.assign(new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`), { status })
  }
  return json
}

/**
 * `api`, again after a pause while the server sheds load (503): a seed of a million documents on a busy machine
 * can meet the overload guard, which asks the client to come back later.
 */
async function patiently(...args) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api(...args)
    } catch (error) {
      if (error.status !== 503 || attempt === 20) throw error
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
  }
}

function progress(label, done, total) {
  const width = 30
  const filled = Math.round((done / total) * width)
  process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`)
  if (done === total) process.stderr.write('\n')
}

/** Documents per bulk call when seeding (the most one call takes). */
const BULK_BATCH = 1000
/** Import rates (documents per second), printed after the scenarios. */
const imports = []
/** The store's size on disk once seeded, and the seeding server's memory, by scale. */
const disk = new Map()

/**
 * Creates `total` documents over HTTP and returns their ids in creation order: in bulk calls of `BULK_BATCH`
 * (4 in flight), or with `single` one create per request (64 in flight). Records the rate in `imports`.
 */
async function seed(base, token, definition, total, make, environment = 'default', { single = false } = {}) {
  const ids = new Array(total)
  const core = `/api/v2/document-definitions/${definition}/documents`
  const label = `seeding ${definition}${single ? ' (one create per request)' : ' (bulk)'}`
  const step = single ? 1 : BULK_BATCH
  let next = 0
  let done = 0
  const started = performance.now()
  const worker = async () => {
    while (next < total) {
      const from = next
      const to = Math.min(total, from + step)
      next = to
      if (single) {
        ids[from] = (await patiently(base, 'POST', `${core}/new`, token, make(from), environment)).data._id
      } else {
        const operations = []
        for (let i = from; i < to; i++) operations.push({ op: 'create', body: make(i) })
        const { data } = await patiently(base, 'POST', `${core}/bulk`, token, { operations }, environment)
        data.forEach((result, offset) => (ids[from + offset] = result._id))
      }
      const before = done
      done += to - from
      if (Math.floor(done / 1000) > Math.floor(before / 1000) || done === total) progress(label, done, total)
    }
  }
  await Promise.all(Array.from({ length: single ? 64 : 4 }, worker))
  const rate = total / ((performance.now() - started) / 1000)
  imports.push({
    name: `import ${total} documents (${definition}): ${single ? 'one create per request' : `bulk, ${step} per call`}`,
    rate,
  })
  console.error(`${label}: ${rate.toFixed(0)} documents/s`)
  return ids
}

/**
 * Environment A's `scenario` alone and while environment B keeps `hostile` requests in flight, in alternating
 * rounds: how much of its throughput A keeps, and how its p99 moves, when a neighbour tries to stall the server.
 */
async function measureNeighbour(name, server, scenario, hostile) {
  await run(server, scenario, 2)
  const rounds = ROUNDS
  const duration = DURATION / rounds
  const alone = []
  const crowded = []
  const neighbour = []
  for (let round = 0; round < rounds; round++) {
    const aloneFirst = round % 2 === 0
    if (aloneFirst) alone.push(await run(server, scenario, duration))
    const [a, b] = await Promise.all([
      run(server, scenario, duration),
      load({ ...hostile, url: server.url, duration: duration + 1 }),
    ])
    crowded.push(a)
    neighbour.push(b)
    if (!aloneFirst) alone.push(await run(server, scenario, duration))
  }
  const rate = (runs) => mean(runs.map((r) => r.rps))
  const p99 = (runs) => Math.max(...runs.map((r) => r.p99))
  const statuses = {}
  for (const r of neighbour) {
    for (const [code, count] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + count
  }
  const row = {
    name,
    scale: DOCUMENTS,
    rps: rate(crowded),
    ceiling: rate(alone),
    ratio: rate(crowded) / rate(alone),
    p50: median(crowded.map((r) => r.p50)),
    p99: p99(crowded),
    rssMb: crowded.at(-1).rssMb,
    anonMb: crowded.at(-1).anonMb,
    non2xx: crowded.reduce((sum, r) => sum + r.non2xx, 0),
    errors: crowded.reduce((sum, r) => sum + r.errors, 0),
    statuses: Object.fromEntries(Object.entries(crowded.at(-1).statuses)),
    alone: { p99: p99(alone) },
    neighbour: { rps: rate(neighbour), statuses },
  }
  results.push(row)
  console.error(
    `${name.padEnd(52)} ${row.rps.toFixed(0).padStart(7)} req/s (alone ${row.ceiling.toFixed(0)})  ratio ${row.ratio.toFixed(3)}  p99 ${row.p99} ms (alone ${row.alone.p99} ms)  neighbour ${row.neighbour.rps.toFixed(1)} req/s ${JSON.stringify(statuses)}`,
  )
}

const pick = (ids, n) => Array.from({ length: n }, (_, i) => ids[Math.floor((i * 7919) % ids.length)])

async function main() {
  hello = await start(join(ROOT, 'bench/hello.mjs'))
  await measure('fastify hello-world (the ceiling itself)', hello, HELLO)
  const floor = await start(join(ROOT, 'bench/floor.mjs'))
  await measure("floor: Quire's HTTP stack, a constant document", floor, {
    method: 'GET',
    requests: [{ path: '/api/v2/document-definitions/bench/documents/x' }],
  })
  // What bounds create before Quire does any work: taking a JSON body in, on bare Fastify and on Quire's stack.
  await measure('fastify hello-world, POST of a create body', hello, {
    method: 'POST',
    headers: JSON_HEADERS,
    requests: [{ path: '/', body: CREATE_BODY }],
  })
  await measure("floor, POST: Quire's HTTP stack, a create body in, a constant document out", floor, {
    method: 'POST',
    headers: JSON_HEADERS,
    requests: [{ path: '/api/v2/document-definitions/bench/documents/new', body: CREATE_BODY }],
  })
  await stop(floor)

  await documentsScenarios()
  if (SCALES.length > 1) await scaleScenarios()
  await stop(hello)
  report()
}

/** The seeded documents: `category` with about `PER_CATEGORY` documents each, `price` and `score` spread. */
const benchDocument = (total) => (i) => ({
  externalId: `ext-${i}`,
  category: `c${i % Math.max(1, Math.round(total / PER_CATEGORY))}`,
  price: (i * 7919) % 10_000,
  score: (i * 104_729) % 1_000_003,
  title: `Document ${i}`,
  tags: ['bench'],
})

/**
 * A store of `total` documents seeded through bulk calls (with `single`, the same import one create per request
 * into another definition too), and a server started on it afresh, as after a deploy: the import's garbage and
 * the pages it touched would otherwise count in every scenario's memory.
 */
async function seededStore(total, { single = false } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-'))
  const env = {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_HOST: '127.0.0.1',
    QUIRE_PORT: '0',
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
  }
  const seeder = await start(join(ROOT, 'apps/gateway/dist/server.js'), env)
  const token = (await api(seeder.url, 'POST', '/auth/login', null, ADMIN)).data.accessToken
  const headers = { authorization: `Bearer ${token}`, 'environment-id': 'default', 'content-type': 'application/json' }

  await api(seeder.url, 'POST', '/api/v2/document-definitions', token, { name: 'bench', indexes: INDEXES })
  const ids = await seed(seeder.url, token, 'bench', total, benchDocument(total))
  if (single) {
    await api(seeder.url, 'POST', '/api/v2/document-definitions', token, { name: 'single', indexes: INDEXES })
    const one = (i) => {
      const { category, price, title, tags } = benchDocument(total)(i)
      return { category, price, title, tags }
    }
    await seed(seeder.url, token, 'single', total, one, 'default', { single: true })
    const [bulkRate, singleRate] = imports.slice(-2).map((entry) => entry.rate)
    imports.push({ name: 'bulk / one create per request', ratio: bulkRate / singleRate })
  }
  const seedMemory = { rssMb: peakRss(seeder.child.pid), anonMb: anonRss(seeder.child.pid) }
  await stop(seeder)
  disk.set(total, { mb: diskUsage(join(dataDir, 'records')) / 2 ** 20, seedMemory })
  dropPageCache()
  const server = await start(join(ROOT, 'apps/gateway/dist/server.js'), env)
  return { dataDir, env, server, ids, token, headers }
}

const q = (value) => encodeURIComponent(JSON.stringify(value))
const CORE = '/api/v2/document-definitions/bench/documents'

/**
 * The core scenarios on a seeded store of `total` documents, in the order they run (creates grow the store, so
 * they come last): what every scale reports.
 */
function coreScenarios({ ids, headers }, total) {
  const category = `c${7 % Math.max(1, Math.round(total / PER_CATEGORY))}`
  const get = (path) => ({ method: 'GET', headers, requests: [{ path }] })
  return [
    ['get by _id', { method: 'GET', headers, requests: pick(ids, 5000).map((id) => ({ path: `${CORE}/${id}` })) }],
    ['list 20, default sort, first page', get(`${CORE}?limit=20`)],
    // The case most users write first (issue 22): it must stay in the bench.
    [
      'list 20, query on category + sort on score, single-field index on category',
      get(`${CORE}?limit=20&query=${q({ category })}&sort=${q({ score: -1 })}`),
    ],
    [
      'list 20, query on category + sort on price, compound index {category: 1, price: -1}',
      get(`${CORE}?limit=20&query=${q({ category })}&sort=${q({ price: -1 })}`),
    ],
    [
      'list 20 with count=true, query on category (indexed)',
      get(`${CORE}?limit=20&count=true&query=${q({ category })}`),
    ],
    ['create', { method: 'POST', headers, requests: [{ path: `${CORE}/new`, body: CREATE_BODY }] }],
  ]
}

/**
 * The core scenarios at every larger scale against the first, each on a store of its own seeded afresh, with
 * both servers up: every round runs the hello-world, the larger store and the first one in turn, so the ratio of
 * the two stores comes from the same minutes of this machine (measured apart, its drift alone moved them by 30%).
 */
async function scaleScenarios() {
  const [first, ...larger] = SCALES
  const base = await seededStore(first)
  const baseScenarios = new Map(coreScenarios(base, first))
  for (const total of larger) {
    const store = await seededStore(total)
    for (const [name, scenario] of coreScenarios(store, total)) {
      await measure(
        name,
        store.server,
        scenario,
        { name: `${first}`, server: base.server, scenario: baseScenarios.get(name) },
        total,
      )
    }
    await stop(store.server)
    rmSync(store.dataDir, { recursive: true, force: true })
  }
  await stop(base.server)
  rmSync(base.dataDir, { recursive: true, force: true })
}

/**
 * Every documents scenario on a store of `BENCH_DOCUMENTS`: the core ones, the one-create-per-request import,
 * lookups by `externalId`, a deep page, the scan without an index, the noisy neighbour, patch, attachments, login
 * and the distributed deployment.
 */
async function documentsScenarios() {
  const total = DOCUMENTS
  const store = await seededStore(total, { single: true })
  const { dataDir, env, server: quire, ids, token, headers } = store
  const sample = pick(ids, 5000)
  const at = (name, scenario, compare) => measure(name, quire, scenario, compare, total)
  const get = (path) => ({ method: 'GET', headers, requests: [{ path }] })
  const scenarios = new Map(coreScenarios(store, total))
  const coreAt = (name) => at(name, scenarios.get(name))
  const getById = scenarios.get('get by _id')
  const compound = scenarios.get('list 20, query on category + sort on price, compound index {category: 1, price: -1}')

  await coreAt('get by _id')
  await at('get by externalId', {
    method: 'GET',
    headers,
    requests: pick([...ids.keys()], 5000).map((i) => ({ path: `${CORE}/ext-${i}` })),
  })
  await coreAt('list 20, default sort, first page')
  await at('list 20, default sort, deep page (after)', get(`${CORE}?limit=20&after=${ids[Math.floor(total * 0.9)]}`))
  await coreAt('list 20, query on category + sort on score, single-field index on category')
  await coreAt('list 20, query on category + sort on price, compound index {category: 1, price: -1}')
  await coreAt('list 20 with count=true, query on category (indexed)')
  await api(quire.url, 'PATCH', '/api/v2/document-definitions/bench', token, { indexes: [] })
  // A scan of every document per request, one at a time: with more connections requests queue behind scans
  // until the overload guard answers 503, which would measure the guard, not the scan.
  await at('list 20, query + sort, without index (1 connection)', { ...compound, connections: 1, rounds: 1 })
  await api(quire.url, 'PATCH', '/api/v2/document-definitions/bench', token, { indexes: INDEXES })

  // A noisy neighbour: environment B, with as many documents, sends what a hostile tenant would (scans and
  // sorts without an index, a catastrophic pattern, deep skips with counts, index builds) while A reads by id.
  await api(quire.url, 'POST', '/api/v2/environments', token, { _id: 'noisy', name: 'Noisy' })
  await api(quire.url, 'POST', '/api/v2/document-definitions', token, { name: 'hostile' }, 'noisy')
  await seed(
    quire.url,
    token,
    'hostile',
    DOCUMENTS,
    (i) => ({ category: `c${i % 50}`, price: (i * 7919) % 10_000, title: `${'a'.repeat(i % 64)}!` }),
    'noisy',
  )
  const hostileCore = '/api/v2/document-definitions/hostile/documents'
  const definitionPath = '/api/v2/document-definitions/hostile'
  await measureNeighbour('get by _id while a neighbour is hostile', quire, getById, {
    method: 'GET',
    headers: { ...headers, 'environment-id': 'noisy' },
    connections: 4,
    requests: [
      { path: `${hostileCore}?limit=20&sort=${q({ title: 1 })}` },
      { path: `${hostileCore}?limit=20&query=${q({ title: { $regex: '^(a+)+$' } })}` },
      { path: `${hostileCore}?limit=20&skip=90000&count=true&query=${q({ price: { $gte: 0 } })}` },
      { method: 'PATCH', path: definitionPath, body: JSON.stringify({ indexes: [{ fields: { price: 1 } }] }) },
      { method: 'PATCH', path: definitionPath, body: JSON.stringify({ indexes: [] }) },
    ],
  })

  // The writes come last among the documents scenarios: creates grow the store past its seeded size.
  await coreAt('create')
  await at('patch', {
    method: 'PATCH',
    headers,
    requests: sample.map((id, i) => ({ path: `${CORE}/${id}`, body: JSON.stringify({ price: i }) })),
  })

  const boundary = 'quirebenchboundary'
  const multipart = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="one-mb.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`,
    ),
    Buffer.alloc(1024 * 1024, 7),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const bodyFile = join(dataDir, 'upload.bin')
  writeFileSync(bodyFile, multipart)
  const target = ids[1]
  const uploaded = await fetch(new URL(`${CORE}/${target}/attachments?valuePath=file`, quire.url), {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: multipart,
  }).then((res) => res.json())
  const attachmentId = uploaded.data.attachments[0]._id
  await at('upload 1 MB attachment (replace)', {
    method: 'POST',
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
    bodyFile,
    duration: Math.min(DURATION, 5),
    rounds: 1,
    // One document per connection: replacing the same document's file from 50 connections at once measures
    // write conflicts (412 after the retries), not uploads.
    requests: ids
      .slice(2, 2 + CONNECTIONS)
      .map((id) => ({ path: `${CORE}/${id}/attachments?valuePath=file&actionType=Replace` })),
  })
  await at('download 1 MB attachment', {
    method: 'GET',
    headers,
    requests: [{ path: `${CORE}/${target}/attachments/${attachmentId}` }],
  })

  await at('login (scrypt)', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    duration: Math.min(DURATION, 5),
    rounds: 1,
    requests: [{ path: '/auth/login', body: JSON.stringify(ADMIN) }],
  })

  // Distributed: the three services and the gateway as separate processes on the same data, beside the
  // all-in-one server (idle while they run), so each round compares the two.
  const service = (app) => start(join(ROOT, `apps/${app}/dist/server.js`), env)
  const users = await service('users-service')
  const [documents, packages] = await Promise.all([service('documents-service'), service('packages-service')])
  const gateway = await start(join(ROOT, 'apps/gateway/dist/server.js'), {
    ...env,
    QUIRE_DOCUMENTS_URL: documents.url,
    QUIRE_USERS_URL: users.url,
    QUIRE_PACKAGES_URL: packages.url,
  })
  await measure('get by _id through the gateway (distributed)', gateway, getById, {
    name: 'all-in-one',
    server: quire,
    scenario: getById,
  })
  await Promise.all([quire, gateway, users, documents, packages].map(stop))
  rmSync(dataDir, { recursive: true, force: true })
}

/** The tables, in Markdown: every scenario at the first scale, then the core ones side by side at each scale. */
function report() {
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  console.log(
    `\nMachine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ${CONNECTIONS} connections, ${DURATION} s per scenario, ${DOCUMENTS} documents; page cache ${pageCacheDropped ? 'dropped' : 'kept (not root)'} before each server started on a seeded store.`,
  )
  console.log(
    '\n| scenario | req/s | p50 ms | p99 ms | peak RSS MB | anon MB at end | ceiling req/s | ratio to ceiling |',
  )
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const r of results.filter((row) => row.scale === DOCUMENTS)) {
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.rssMb.toFixed(0)} | ${r.anonMb.toFixed(0)} | ${r.ceiling.toFixed(0)} | ${r.ratio.toFixed(3)}${r.compared === undefined ? '' : ` (${r.compared.toFixed(2)} × ${r.comparedWith})`} |${r.non2xx || r.errors ? ` statuses ${JSON.stringify(r.statuses)}, ${r.errors} errors` : ''}`,
    )
  }
  console.log('\n| import over HTTP (seed phase) | documents/s |')
  console.log('| --- | ---: |')
  for (const entry of imports) {
    console.log(
      `| ${entry.name} | ${entry.rate === undefined ? `${entry.ratio.toFixed(1)} ×` : entry.rate.toFixed(0)} |`,
    )
  }
  if (SCALES.length < 2) return
  const [first, ...larger] = SCALES
  const memory = (r) => `${r.rssMb.toFixed(0)} / ${r.anonMb.toFixed(0)}`
  for (const total of larger) {
    console.log(
      `\n| scenario (the two stores in the same rounds) | ratio at ${first} | p99 ms | peak RSS / anon MB | ratio at ${total} | p99 ms | peak RSS / anon MB | ${total} / ${first} |`,
    )
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const r of results.filter((row) => row.scale === total && row.other)) {
      console.log(
        `| ${r.name} | ${r.other.ratio.toFixed(3)} | ${r.other.p99} | ${memory(r.other)} | ${r.ratio.toFixed(3)} | ${r.p99} | ${memory(r)} | ${r.compared.toFixed(2)} |`,
      )
    }
  }
  const sizes = [...disk].sort(([a], [b]) => a - b)
  console.log('\n| store | on disk (records) MB | the seeding server at the end of the import: peak RSS / anon MB |')
  console.log('| --- | ---: | ---: |')
  for (const [total, { mb, seedMemory }] of sizes) {
    console.log(`| ${total} documents | ${mb.toFixed(0)} | ${memory(seedMemory)} |`)
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
