// Fair share between environments (issue 32), on the built all-in-one server in its own process: environment
// `default` reads by `_id` alone, then while one and two other environments each keep four filter + sort queries
// in flight (filter on a single-field index, sort on another field, 100 categories rotated), in alternating
// rounds of the same run. Each load runs autocannon in a process of its own.
//   node bench/fair.mjs      (BENCH_DURATION=seconds per phase and round, BENCH_ROUNDS, BENCH_DOCUMENTS per neighbour)
// With BENCH_PROFILE=1, only the one-neighbour phase runs, the server under `--cpu-prof`; its summary follows.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { summarizeProfile } from './profile.mjs'

const SELF = fileURLToPath(import.meta.url)
const SERVER = fileURLToPath(new URL('../apps/gateway/dist/server.js', import.meta.url))
const DURATION = Number(process.env.BENCH_DURATION ?? 3)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 100_000)
const PROFILE = process.env.BENCH_PROFILE === '1'
const READER_DOCUMENTS = 1000
const CATEGORIES = 100
const ADMIN = { username: 'admin', password: 'bench-password-1' }
const CORE = '/api/v2/document-definitions/bench/documents'
const q = (value) => encodeURIComponent(JSON.stringify(value))

/** One load, in this child process: autocannon over `paths` in turn; prints one JSON line. */
async function loadChild({ url, connections, duration, headers, paths }) {
  const { default: autocannon } = await import('autocannon')
  let i = 0
  const result = await autocannon({
    url,
    connections,
    duration,
    headers,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: paths[i++ % paths.length] }) }],
  })
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]))
  console.log(
    JSON.stringify({
      rps: result.requests.total / result.duration,
      p99: result.latency.p99,
      statuses,
      errors: result.errors + result.timeouts,
    }),
  )
}

function load(scenario) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SELF, '--load', JSON.stringify(scenario)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load exited ${code}`))))
  })
}

function startServer(env, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, SERVER], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  process.on('exit', () => child.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening (?:at http:\/\/127\.0\.0\.1:)?(\d+)/i.exec(line)
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}` })
    })
  })
}

/** One API call; again after a pause while the server sheds load (503), as it may on a busy machine. */
async function api(base, method, path, token, body, environment = 'default') {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(new URL(path, base), {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}`, 'environment-id': environment } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    })
    const json = await res.json()
    if (res.ok) return json
    if (res.status !== 503 || attempt === 20) {
      throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

/** A `bench` definition in `environment` with `total` documents, indexed on `category` alone; their ids. */
async function seed(url, token, environment, total) {
  await api(
    url,
    'POST',
    '/api/v2/document-definitions',
    token,
    { name: 'bench', indexes: [{ fields: { category: 1 } }] },
    environment,
  )
  const ids = []
  for (let from = 0; from < total; from += 1000) {
    const operations = []
    for (let i = from; i < Math.min(total, from + 1000); i++) {
      operations.push({
        op: 'create',
        body: { category: `c${i % CATEGORIES}`, score: (i * 104_729) % 1_000_003, title: `Document ${i}` },
      })
    }
    const { data } = await api(url, 'POST', `${CORE}/bulk`, token, { operations }, environment)
    ids.push(...data.map((result) => result._id))
  }
  process.stderr.write(`seeded ${environment}: ${total}\n`)
  return ids
}

/** CPU time the process has used (user and system), from the kernel, in seconds. */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-fair-'))
  const profileDir = join(dataDir, 'profile')
  const server = await startServer(
    {
      QUIRE_DATA_DIR: dataDir,
      // One process: its memory and CPU are what this measures.
      QUIRE_PROCESSES: '1',
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: '0',
      QUIRE_LOG_LEVEL: 'info',
      QUIRE_ADMIN_PASSWORD: ADMIN.password,
    },
    PROFILE ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [],
  )
  try {
    const token = (await api(server.url, 'POST', '/auth/login', null, ADMIN)).data.accessToken
    const neighbours = ['n1', 'n2']
    for (const id of neighbours) await api(server.url, 'POST', '/api/v2/environments', token, { _id: id, name: id })
    const ids = await seed(server.url, token, 'default', READER_DOCUMENTS)
    for (const id of neighbours) await seed(server.url, token, id, DOCUMENTS)

    const headers = (environment) => ({ authorization: `Bearer ${token}`, 'environment-id': environment })
    const reader = {
      url: server.url,
      connections: 50,
      headers: headers('default'),
      paths: ids.map((id) => `${CORE}/${id}`),
    }
    const sort = q({ score: -1 })
    const neighbour = (environment) => ({
      url: server.url,
      connections: 4,
      headers: headers(environment),
      paths: Array.from(
        { length: CATEGORIES },
        (_, c) => `${CORE}?limit=20&sort=${sort}&query=${q({ category: `c${(c * 37) % CATEGORIES}` })}`,
      ),
    })
    const phases = PROFILE
      ? [['one neighbour', ['n1']]]
      : [
          ['alone', []],
          ['one neighbour', ['n1']],
          ['two neighbours', ['n1', 'n2']],
        ]
    await load({ ...reader, duration: 2 })
    await load({ ...neighbour('n1'), duration: 2 })
    const measured = new Map(phases.map(([name]) => [name, { reader: [], neighbours: [], cpu: 0 }]))
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? phases : [...phases].reverse()
      for (const [name, environments] of order) {
        const cpuBefore = cpuSeconds(server.child.pid)
        const [r, ...n] = await Promise.all([
          load({ ...reader, duration: DURATION }),
          ...environments.map((environment) => load({ ...neighbour(environment), duration: DURATION })),
        ])
        const phase = measured.get(name)
        phase.reader.push(r)
        phase.neighbours.push(...n)
        phase.cpu += cpuSeconds(server.child.pid) - cpuBefore
        const others = n.map((x) => `; neighbour ${x.rps.toFixed(1)} req/s ${JSON.stringify(x.statuses)}`)
        process.stderr.write(
          `round ${round + 1} ${name}: ${r.rps.toFixed(0)} req/s p99 ${r.p99} ms${others.join('')}\n`,
        )
      }
    }
    if (PROFILE) {
      const exited = new Promise((resolve) => server.child.once('exit', resolve))
      server.child.kill('SIGTERM')
      await exited
      const [file] = readdirSync(profileDir).filter((name) => name.endsWith('.cpuprofile'))
      const root = fileURLToPath(new URL('../', import.meta.url))
      const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'))
      console.log(summarizeProfile(profile, { root, seconds: ROUNDS * DURATION, top: 25 }))
      return
    }
    const total = (runs) => runs.reduce((sum, r) => sum + r.rps * DURATION, 0)
    const { reader: aloneRuns, cpu: aloneCpu } = measured.get('alone')
    const alone = total(aloneRuns) / aloneRuns.length / DURATION
    const alonePerCpu = total(aloneRuns) / aloneCpu
    for (const [name, environments] of phases) {
      const { reader: runs, neighbours: others, cpu } = measured.get(name)
      const rps = total(runs) / runs.length / DURATION
      const statuses = {}
      for (const r of [...runs, ...others]) {
        for (const [code, count] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + count
      }
      const neighbours = environments.length
        ? ` | each neighbour ${(total(others) / others.length / DURATION).toFixed(1)} req/s, p99 ${Math.max(...others.map((r) => r.p99))} ms`
        : ''
      console.log(
        `get by _id, ${name.padEnd(15)} ${rps.toFixed(0).padStart(6)} req/s (${(rps / alone).toFixed(2)} of alone; per server CPU second ${(total(runs) / cpu / alonePerCpu).toFixed(2)})  p99 ${Math.max(...runs.map((r) => r.p99))} ms${neighbours}  statuses ${JSON.stringify(statuses)}`,
      )
    }
  } finally {
    server.child.kill('SIGTERM')
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--load') await loadChild(JSON.parse(process.argv[3]))
else await main()
