// What a webhook costs the write path (issue 36): the built all-in-one server (embedded store in a temp dir,
// logging at `info`) in its own process, loaded by autocannon from this one over one connection, one create at a
// time, on two definitions of one environment: `plain`, which no webhook concerns, and `hooked`, whose creates each
// queue a delivery (in the write's transaction) to a receiver in this process answering 200. The two alternate in
// short rounds (the machine's speed drifts); the ratio is what to read. Then every delivery is awaited, and the
// time from a change's commit (`createdOn`) to its receipt is reported (p50, p99).
//   node bench/webhooks.mjs   (after `npm run build`; BENCH_DURATION=seconds per scenario, BENCH_ROUNDS)
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
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

/** The receiver: counts deliveries and keeps, for each, the time from its change's commit to its receipt. */
const lags = []
const eventIds = new Set()
let received = 0
let expected = Infinity
let allReceived = () => {}
const everyDelivery = new Promise((resolve) => (allReceived = resolve))
const receiver = createServer((request, response) => {
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString())
    received++
    eventIds.add(body.id)
    lags.push(Date.now() - Date.parse(body.createdOn))
    if (received >= expected) allReceived()
    response.end()
  })
})
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))

/** One connection, one create at a time: the mean latency is the run's length over its requests. */
async function measure(url, headers, path, duration) {
  const result = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'bench', price: 5 }),
    connections: 1,
    pipelining: 1,
    duration,
  })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`POST ${path}: ${result.non2xx} non-2xx answers`)
  return { requests: result.requests.total, mean: (result.duration * 1000) / result.requests.total }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const percentile = (values, p) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]

const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-webhooks-'))
const server = await startServer({
  QUIRE_DATA_DIR: dataDir,
  QUIRE_HOST: '127.0.0.1',
  QUIRE_PORT: '0',
  QUIRE_LOG_LEVEL: 'info',
  QUIRE_ADMIN_PASSWORD: ADMIN.password,
  // The receiver is on loopback.
  QUIRE_WEBHOOKS_ALLOW_PRIVATE: 'true',
  QUIRE_WEBHOOK_WAITING_PER_ENVIRONMENT: '1000000',
  // On a shared, busy machine the gateway would shed load (503) instead of measuring it.
  QUIRE_MAX_EVENT_LOOP_DELAY_MS: '60000',
})
try {
  const { accessToken } = (await api(server.url, 'POST', '/auth/login', {}, ADMIN)).data
  const headers = { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' }
  for (const name of ['plain', 'hooked']) {
    await api(server.url, 'POST', '/api/v2/document-definitions', headers, { name })
  }
  await api(server.url, 'POST', '/api/v2/webhooks', headers, {
    url: `http://127.0.0.1:${receiver.address().port}/hook`,
    events: ['document.create'],
    ddId: 'hooked',
  })
  const scenarios = [
    { name: 'create, no webhook', path: '/api/v2/document-definitions/plain/documents/new' },
    { name: 'create, one webhook', path: '/api/v2/document-definitions/hooked/documents/new' },
  ]
  for (const scenario of scenarios) await measure(server.url, headers, scenario.path, 2)

  const rounds = scenarios.map(() => [])
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, scenario] of scenarios.entries()) {
      rounds[index].push(await measure(server.url, headers, scenario.path, DURATION / ROUNDS))
    }
  }
  const rows = scenarios.map((scenario, index) => ({
    scenario: scenario.name,
    requests: rounds[index].reduce((sum, each) => sum + each.requests, 0),
    'mean ms': Number(median(rounds[index].map((each) => each.mean)).toFixed(3)),
  }))
  console.log(
    `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${DURATION} s per scenario in ${ROUNDS} rounds`,
  )
  console.table(rows)
  console.log(`create with a webhook / without: ${(rows[1]['mean ms'] / rows[0]['mean ms']).toFixed(2)}x the latency`)
  // autocannon leaves out a request still in flight when a run ends: the store's count is the truth.
  const { pagination } = await api(
    server.url,
    'GET',
    `${scenarios[1].path.replace('/new', '')}?limit=1&count=true`,
    headers,
  )
  expected = pagination.total
  if (received >= expected) allReceived()
  await Promise.race([everyDelivery, new Promise((resolve) => setTimeout(resolve, 120_000).unref())])
  console.log(
    `deliveries: ${received} (${eventIds.size} distinct) of ${expected} creates; commit to receipt p50 ${percentile(lags, 0.5)} ms, ` +
      `p99 ${percentile(lags, 0.99)} ms`,
  )
} finally {
  server.child.kill('SIGTERM')
  await new Promise((resolve) => server.child.once('exit', resolve))
  receiver.close()
  rmSync(dataDir, { recursive: true, force: true })
}
