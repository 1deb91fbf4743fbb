// The change feed under load (issue 36): the built all-in-one server (embedded store in a temp dir) in its own
// process; this process opens BENCH_SUBSCRIBERS streams (1,000) on one definition, then creates BENCH_WRITES
// documents (1,000) from BENCH_CONCURRENCY callers (16). It reports: every event delivered to every subscriber,
// p50/p99 from the write to its delivery (from the document's `_createdOn`, set before the commit, so an upper
// bound of commit → delivery; sampled on 50 subscribers), the server's RSS per idle subscription, and create
// throughput without subscribers and with them, in the same run, with the server's CPU per create (with
// subscribers: the create and its delivery to all of them). Also p50/p99 from the write's answer reaching its caller
// to the event reaching a sampled subscriber (0 when the event came first).
//   node bench/feed.mjs   (after `npm run build`; BENCH_SUBSCRIBERS, BENCH_WRITES, BENCH_CONCURRENCY)
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request as httpRequest } from 'node:http'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000)
const WRITES = Number(process.env.BENCH_WRITES ?? 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const SAMPLED = 50
const ADMIN = { username: 'admin', password: 'bench-password-1' }

function startServer(env) {
  const probe = join(ROOT, 'bench/heap-probe.cjs')
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--require', probe, join(ROOT, 'apps/gateway/dist/server.js')],
    {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  process.on('exit', () => child.kill('SIGKILL'))
  const probed = []
  createInterface({ input: child.stderr }).on('line', (line) => {
    const match = /^heap-probe (\d+)$/.exec(line)
    if (match) probed.shift()?.(Number(match[1]))
    else process.stderr.write(`${line}\n`)
  })
  /** The server's live memory after a full collection, in bytes (see heap-probe.cjs). */
  const liveMemory = () =>
    new Promise((resolve) => {
      probed.push(resolve)
      child.kill('SIGUSR2')
    })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)))
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening (?:at http:\/\/127\.0\.0\.1:)?(\d+)/i.exec(line)
      if (match) resolve({ child, url: `http://127.0.0.1:${match[1]}`, liveMemory })
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

/** The server's resident memory, in bytes (Linux). */
const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024

/** The server's CPU time (user and system), in ms (Linux; 100 clock ticks a second). */
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const streams = new Agent({ keepAlive: false, maxSockets: Infinity })

/** One subscription: counts its events; a sampled one notes when each arrived against its `_createdOn`. */
function subscribe(url, path, headers, sampled) {
  const subscriber = { events: 0, delays: [], arrivals: [], response: undefined }
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}${path}`,
      { headers: { ...headers, accept: 'text/event-stream' }, agent: streams },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`subscribe: ${response.statusCode}`))
        subscriber.response = response
        response.setEncoding('utf8')
        let rest = ''
        response.on('data', (chunk) => {
          const now = Date.now()
          const text = rest + chunk
          const end = text.lastIndexOf('\n\n')
          rest = end < 0 ? text : text.slice(end + 2)
          const complete = end < 0 ? '' : text.slice(0, end)
          subscriber.events += complete.match(/^event: create$/gm)?.length ?? 0
          if (sampled) {
            for (const [, id, at] of complete.matchAll(/^data: \{"_id":"([^"]+)".*?"_createdOn":"([^"]+)"/gm)) {
              subscriber.delays.push(now - Date.parse(at))
              subscriber.arrivals.push([id, now])
            }
          }
          if (subscriber.resolved === undefined) {
            subscriber.resolved = true
            resolve(subscriber)
          }
        })
      },
    )
    request.once('error', reject)
    request.end()
  })
}

/**
 * `count` creates from `CONCURRENCY` callers; resolves to creates per second and how many were refused (a 503 of
 * the overload guard or a 429 is counted, not retried: a write refused because of subscribers is a failure here).
 */
async function creates(url, path, headers, count, answered) {
  let next = 0
  let refused = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const n = next++
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ n, title: `document ${n}`, tags: ['bench', `t${n % 100}`] }),
        })
        const body = await response.json()
        answered?.set(body.data?._id, Date.now())
        if (response.status === 503 || response.status === 429) refused++
        else if (!response.ok) throw new Error(`POST ${path}: ${response.status}`)
      }
    }),
  )
  return { perSecond: (count - refused) / ((performance.now() - started) / 1000), refused }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const dataDir = mkdtempSync(join(tmpdir(), 'quire-feed-bench-'))
const server = await startServer({
  QUIRE_DATA_DIR: dataDir,
  QUIRE_HOST: '127.0.0.1',
  QUIRE_PORT: '0',
  // At `info` the server says where it listens.
  QUIRE_LOG_LEVEL: 'info',
  QUIRE_ADMIN_PASSWORD: ADMIN.password,
  // One user opens every stream here.
  QUIRE_CHANGE_FEED_PER_USER: String(SUBSCRIBERS),
  QUIRE_CHANGE_FEED_BUFFER: String(WRITES + 10),
})
try {
  const { accessToken } = (await api(server.url, 'POST', '/auth/login', {}, ADMIN)).data
  const headers = { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' }
  const { _id: ddId } = (await api(server.url, 'POST', '/api/v2/document-definitions', headers, { name: 'bench' })).data
  const { _id: otherId } = (await api(server.url, 'POST', '/api/v2/document-definitions', headers, { name: 'quiet' }))
    .data
  const documents = `/api/v2/document-definitions/${ddId}/documents`

  // Warm, then without subscribers (in a definition nobody watches, so both runs write into a fresh one).
  await creates(server.url, `/api/v2/document-definitions/${otherId}/documents/new`, headers, 200)
  const cpuBefore = cpuOf(server.child.pid)
  const without = await creates(server.url, `/api/v2/document-definitions/${otherId}/documents/new`, headers, WRITES)
  const cpuWithout = cpuOf(server.child.pid) - cpuBefore

  const before = rssOf(server.child.pid)
  const liveBefore = await server.liveMemory()
  const subscribers = []
  for (let i = 0; i < SUBSCRIBERS; i += 50) {
    const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, j) =>
      subscribe(server.url, `${documents}/changes`, headers, i + j < SAMPLED),
    )
    subscribers.push(...(await Promise.all(batch)))
  }
  const idle = rssOf(server.child.pid)
  const liveIdle = await server.liveMemory()

  const answered = new Map()
  const cpuStart = cpuOf(server.child.pid)
  const withSubscribers = await creates(server.url, `${documents}/new`, headers, WRITES, answered)
  // Every event delivered: wait until each subscriber counted them all (or report what is missing).
  const deadline = Date.now() + 120_000
  const expected = WRITES - withSubscribers.refused
  while (subscribers.some((s) => s.events < expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  // The server's CPU for the creates and every delivery of them.
  const cpuWith = cpuOf(server.child.pid) - cpuStart
  const delivered = subscribers.reduce((sum, s) => sum + s.events, 0)
  const delays = subscribers.flatMap((s) => s.delays)
  // From the write's answer reaching its caller to the event reaching a subscriber (0 when the event came first).
  const afterAnswer = subscribers.flatMap((s) => s.arrivals.map(([id, at]) => Math.max(0, at - answered.get(id))))
  for (const s of subscribers) s.response.destroy()

  const result = {
    subscribers: SUBSCRIBERS,
    writes: WRITES,
    concurrency: CONCURRENCY,
    delivered: `${delivered} of ${SUBSCRIBERS * expected}`,
    writeToDeliveryMs: { p50: percentile(delays, 50), p99: percentile(delays, 99), samples: delays.length },
    answerToDeliveryMs: { p50: percentile(afterAnswer, 50), p99: percentile(afterAnswer, 99) },
    idleBytesPerSubscription: {
      rss: Math.round((idle - before) / SUBSCRIBERS),
      liveAfterCollection: Math.round((liveIdle - liveBefore) / SUBSCRIBERS),
    },
    createsPerSecond: { without: Math.round(without.perSecond), with: Math.round(withSubscribers.perSecond) },
    serverCpuMsPerCreate: {
      without: Number((cpuWithout / WRITES).toFixed(2)),
      withDeliveries: Number((cpuWith / WRITES).toFixed(2)),
    },
    refused: { without: without.refused, with: withSubscribers.refused },
    withOverWithout: Number((withSubscribers.perSecond / without.perSecond).toFixed(2)),
  }
  console.log(JSON.stringify(result, null, 2))
} finally {
  server.child.kill('SIGTERM')
  rmSync(dataDir, { recursive: true, force: true })
}
