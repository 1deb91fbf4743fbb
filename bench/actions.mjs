// The overhead of an action over a plain request (issue 23): the built all-in-one server (embedded store in a temp
// dir, logging at `info`) in its own process, loaded by autocannon from this one over one connection, one request
// at a time: GET of a document, then a manual action on it that returns 1, then one that makes one REST.call (a
// GET of the same document, in-process). The three alternate in short rounds (the machine's speed drifts), and the
// overhead is each action's latency minus the GET's. The goal for the trivial action is under 1 ms.
//   node bench/actions.mjs   (after `npm run build`; BENCH_DURATION=seconds per scenario, BENCH_ROUNDS)
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request as httpRequest } from 'node:http'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const ADMIN = { username: 'admin', password: 'bench-password-1' }

/** Starts the all-in-one server and resolves with its URL once it says where it listens. */
function startServer(env) {
  const child = spawn(process.execPath, [join(ROOT, 'apps/gateway/dist/server.js')], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  process.on('exit', () => child.kill('SIGKILL'))
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening (?:at http:\/\/127\.0\.0\.1:)?(\d+)/i.exec(line)
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}` })
    })
  })
}

async function api(url, method, path, headers, body) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

/**
 * One connection, one request at a time: latency is what a single caller waits. autocannon keeps latencies in
 * whole milliseconds, too coarse here: the mean is the run's length over its requests (one at a time, that is the
 * mean latency), and the p50 is timed per request (`hrtime`) over a keep-alive connection right after.
 */
async function measure(url, headers, { method, path }, duration) {
  const result = await autocannon({ url: `${url}${path}`, method, headers, connections: 1, pipelining: 1, duration })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${method} ${path}: ${result.non2xx} non-2xx answers`)
  const requests = result.requests.total
  const times = []
  for (let i = 0; i < Math.min(requests, 2000); i++) {
    const start = process.hrtime.bigint()
    await send(url, headers, method, path)
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return { requests, mean: (result.duration * 1000) / requests, p50: median(times) }
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
/** One request over the kept-alive connection; resolves once its answer is read. */
function send(url, headers, method, path) {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { method, headers, agent }, (response) => {
      response.resume()
      response.once('end', () =>
        response.statusCode < 300 ? resolve() : reject(new Error(`${path}: ${response.statusCode}`)),
      )
    })
    request.once('error', reject)
    request.end()
  })
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-actions-'))
const server = await startServer({
  QUIRE_DATA_DIR: dataDir,
  QUIRE_HOST: '127.0.0.1',
  QUIRE_PORT: '0',
  QUIRE_LOG_LEVEL: 'info',
  QUIRE_ADMIN_PASSWORD: ADMIN.password,
})
try {
  const { accessToken } = (await api(server.url, 'POST', '/auth/login', {}, ADMIN)).data
  const headers = { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' }
  await api(server.url, 'POST', '/api/v2/document-definitions', headers, {
    name: 'bench',
    actions: [
      { name: 'trivial', triggers: ['manual'], source: 'return 1' },
      {
        name: 'rest',
        triggers: ['manual'],
        source:
          'await REST.call("api/v2/document-definitions/bench/documents/" + serverDocument._id)\nreturn REST.lastStatus',
      },
    ],
  })
  const core = '/api/v2/document-definitions/bench/documents'
  const { _id } = (await api(server.url, 'POST', `${core}/new`, headers, { title: 'bench', price: 5 })).data
  const scenarios = [
    { name: 'GET a document', method: 'GET', path: `${core}/${_id}` },
    { name: 'manual action, return 1', method: 'POST', path: `${core}/${_id}/actions/trivial` },
    { name: 'manual action, one REST.call', method: 'POST', path: `${core}/${_id}/actions/rest` },
  ]
  // Warm-up: the script workers start, the JIT settles.
  for (const scenario of scenarios) await measure(server.url, headers, scenario, 2)

  const rounds = scenarios.map(() => [])
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, scenario] of scenarios.entries()) {
      rounds[index].push(await measure(server.url, headers, scenario, DURATION / ROUNDS))
    }
  }
  const round3 = (value) => Number(value.toFixed(3))
  const rows = scenarios.map((scenario, index) => ({
    scenario: scenario.name,
    requests: rounds[index].reduce((sum, each) => sum + each.requests, 0),
    'p50 ms': round3(median(rounds[index].map((each) => each.p50))),
    'mean ms': round3(median(rounds[index].map((each) => each.mean))),
  }))
  for (const row of rows) {
    row['overhead p50 ms'] = round3(row['p50 ms'] - rows[0]['p50 ms'])
    row['overhead mean ms'] = round3(row['mean ms'] - rows[0]['mean ms'])
  }
  console.log(
    `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${DURATION} s per scenario in ${ROUNDS} rounds`,
  )
  console.table(rows)
  const overhead = rows[1]['overhead p50 ms']
  console.log(`trivial action overhead (p50): ${overhead} ms (goal < 1 ms): ${overhead < 1 ? 'met' : 'NOT met'}`)
} finally {
  server.child.kill('SIGTERM')
  await new Promise((resolve) => server.child.once('exit', resolve))
  rmSync(dataDir, { recursive: true, force: true })
}
