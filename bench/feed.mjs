// The change feed under load (issue 36): the built all-in-one server (embedded store in a temp dir) in its own
// process; this process opens BENCH_SUBSCRIBERS streams (1,000) on one definition, then offers BENCH_RATE writes a
// second (1,000) for BENCH_SECONDS (10), as users at that rate would: bulk creates of BENCH_BULK documents (100)
// and single creates (BENCH_SINGLE_SHARE of the writes, 0.1), sent on a fixed schedule whatever the answers
// (an open loop: a slow server finds more calls waiting, not fewer). The same load goes first into a definition
// nobody watches, then into the watched one (same run, same server). It reports: every event delivered to every
// subscriber; p50/p99 from the write to its delivery on 50 sampled subscribers, from the document's `_createdOn`
// (set before the commit: an upper bound of commit → delivery) and from the write's answer reaching its caller (0
// when the event came first); the writes' own answer times, refused writes (503, 429: counted, not retried); the
// server's CPU per write without and with subscribers (with: the write and all its deliveries); live memory per
// idle subscription (bench/heap-probe.cjs). The streams are read in a worker thread: parsing them must not delay
// the writers' calls and answers on this thread.
//   node bench/feed.mjs   (after `npm run build`; BENCH_SUBSCRIBERS, BENCH_RATE, BENCH_SECONDS, BENCH_BULK,
//   BENCH_SINGLE_SHARE; BENCH_CPU_PROF=<dir>: the server's CPU profile)
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, request as httpRequest } from 'node:http'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { once } from 'node:events'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1000)
const RATE = Number(process.env.BENCH_RATE ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const BULK = Number(process.env.BENCH_BULK ?? 100)
const SINGLE_SHARE = Number(process.env.BENCH_SINGLE_SHARE ?? 0.1)
const WRITES = RATE * SECONDS
/** The schedule's step: each sends its share of the second's bulk and single creates. */
const TICK_MS = 100
const SAMPLED = 50
const ADMIN = { username: 'admin', password: 'bench-password-1' }

function startServer(env) {
  const probe = join(ROOT, 'bench/heap-probe.cjs')
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--require',
      probe,
      // A CPU profile of the server, written where BENCH_CPU_PROF says when it exits.
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []),
      join(ROOT, 'apps/gateway/dist/server.js'),
    ],
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

/** The machine's load average over the last minute (Linux): the bench shares it with everything else. */
const loadAverage = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0])

const streams = new Agent({ keepAlive: false, maxSockets: Infinity })

const CREATE = Buffer.from('\nevent: create\n')

/**
 * One subscription: counts its events; a sampled one notes when each arrived against its `_createdOn`. The others
 * count in the bytes, undecoded: this process reads every stream on the server's machine, and must not be what
 * the delays measure.
 */
function subscribe(url, path, headers, sampled) {
  const subscriber = { events: 0, bytes: 0, delays: [], arrivals: [], response: undefined }
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}${path}`,
      { headers: { ...headers, accept: 'text/event-stream' }, agent: streams },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`subscribe: ${response.statusCode}`))
        subscriber.response = response
        if (sampled) response.setEncoding('utf8')
        let rest = sampled ? '' : Buffer.alloc(0)
        response.on('data', (chunk) => {
          if (subscriber.resolved === undefined) {
            subscriber.resolved = true
            resolve(subscriber)
          }
          subscriber.bytes += Buffer.byteLength(chunk)
          if (!sampled) {
            // A marker split between two chunks is found in the seam: the last chunk's tail before this one's
            // head (copied, a few bytes), so no chunk is copied whole.
            const seam = Buffer.concat([rest, chunk.subarray(0, CREATE.length - 1)])
            if (seam.indexOf(CREATE) >= 0) subscriber.events++
            let at = 0
            while ((at = chunk.indexOf(CREATE, at)) >= 0) {
              subscriber.events++
              at += CREATE.length
            }
            rest = Buffer.from(chunk.subarray(Math.max(0, chunk.length - CREATE.length + 1)))
            return
          }
          const now = Date.now()
          const text = rest + chunk
          const end = text.lastIndexOf('\n\n')
          rest = end < 0 ? text : text.slice(end + 2)
          const complete = end < 0 ? '' : text.slice(0, end)
          subscriber.events += complete.match(/^event: create$/gm)?.length ?? 0
          for (const [, id, at] of complete.matchAll(/^data: \{"_id":"([^"]+)".*?"_createdOn":"([^"]+)"/gm)) {
            subscriber.delays.push(now - Date.parse(at))
            subscriber.arrivals.push([id, now])
          }
        })
      },
    )
    request.once('error', reject)
    request.end()
  })
}

let documentNumber = 0
const documentBody = () => {
  const n = documentNumber++
  return { n, title: `document ${n}`, tags: ['bench', `t${n % 100}`] }
}

/**
 * RATE writes a second for SECONDS into `documents`, on the schedule (see the top); resolves to the writes
 * answered, refused (503, 429) and how long the calls took. `answered` gets each created `_id` with when its
 * answer arrived.
 */
async function offer(url, documents, headers, answered) {
  const singlesPerTick = (RATE * SINGLE_SHARE * TICK_MS) / 1000
  const bulkPerTick = (RATE * (1 - SINGLE_SHARE) * TICK_MS) / 1000 / BULK
  const ticks = (SECONDS * 1000) / TICK_MS
  const stats = { accepted: 0, refused: 0, single: [], bulk: [], calls: [] }
  const call = async (path, body, count, times) => {
    const sent = performance.now()
    const response = await fetch(`${url}${documents}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
    const answer = await response.json()
    const at = Date.now()
    times.push(performance.now() - sent)
    if (response.status === 503 || response.status === 429) {
      stats.refused += count
      return
    }
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(answer)}`)
    stats.accepted += count
    for (const { _id } of Array.isArray(answer.data) ? answer.data : [answer.data]) answered?.set(_id, at)
  }
  const started = performance.now()
  for (let tick = 0; tick < ticks; tick++) {
    const due = started + tick * TICK_MS
    if (due > performance.now()) await new Promise((resolve) => setTimeout(resolve, due - performance.now()))
    const singles = Math.floor((tick + 1) * singlesPerTick) - Math.floor(tick * singlesPerTick)
    const bulks = Math.floor((tick + 1) * bulkPerTick) - Math.floor(tick * bulkPerTick)
    for (let i = 0; i < singles; i++) stats.calls.push(call('new', documentBody(), 1, stats.single))
    for (let i = 0; i < bulks; i++) {
      const operations = Array.from({ length: BULK }, () => ({ op: 'create', body: documentBody() }))
      stats.calls.push(call('bulk', { operations }, BULK, stats.bulk))
    }
  }
  const offeredFor = performance.now() - started
  await Promise.all(stats.calls)
  const answeredFor = performance.now() - started
  return {
    accepted: stats.accepted,
    refused: stats.refused,
    /** Writes answered a second, over the time from the first call to the last answer. */
    perSecond: Math.round(stats.accepted / (answeredFor / 1000)),
    /** How late the last answer came after the last call was sent. */
    drainMs: Math.round(answeredFor - offeredFor),
    singleMs: { p50: round(percentile(stats.single, 50)), p99: round(percentile(stats.single, 99)) },
    bulkMs: { p50: round(percentile(stats.bulk, 50)), p99: round(percentile(stats.bulk, 99)) },
  }
}

const round = (value) => (value === undefined ? undefined : Math.round(value))

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** The worker's part: opens the subscriptions, then reports once each counted `expected` events (see `main`). */
async function readStreams({ url, path, headers }) {
  const subscribers = []
  for (let i = 0; i < SUBSCRIBERS; i += 50) {
    const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, j) =>
      subscribe(url, path, headers, i + j < SAMPLED),
    )
    subscribers.push(...(await Promise.all(batch)))
  }
  parentPort.postMessage('open')
  const [{ expected, deadline }] = await once(parentPort, 'message')
  while (subscribers.some((s) => s.events < expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  parentPort.postMessage({
    delivered: subscribers.reduce((sum, s) => sum + s.events, 0),
    bytes: subscribers.reduce((sum, s) => sum + s.bytes, 0),
    delays: subscribers.flatMap((s) => s.delays),
    arrivals: subscribers.flatMap((s) => s.arrivals),
  })
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-feed-bench-'))
  const server = await startServer({
    QUIRE_DATA_DIR: dataDir,
    // One process: its memory and CPU are what this measures.
    QUIRE_PROCESSES: '1',
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
    const { _id: ddId } = (await api(server.url, 'POST', '/api/v2/document-definitions', headers, { name: 'bench' }))
      .data
    const { _id: otherId } = (await api(server.url, 'POST', '/api/v2/document-definitions', headers, { name: 'quiet' }))
      .data
    const documents = `/api/v2/document-definitions/${ddId}/documents`

    // Warm, then without subscribers (in a definition nobody watches, so both runs write into a fresh one).
    const quiet = `/api/v2/document-definitions/${otherId}/documents`
    for (let i = 0; i < 5; i++) {
      await api(server.url, 'POST', `${quiet}/bulk`, headers, {
        operations: Array.from({ length: BULK }, () => ({ op: 'create', body: documentBody() })),
      })
    }
    const cpuBefore = cpuOf(server.child.pid)
    const without = await offer(server.url, quiet, headers)
    const cpuWithout = cpuOf(server.child.pid) - cpuBefore

    const before = rssOf(server.child.pid)
    const liveBefore = await server.liveMemory()
    const reader = new Worker(new URL(import.meta.url), {
      workerData: { url: server.url, path: `${documents}/changes`, headers },
    })
    await once(reader, 'message')
    const idle = rssOf(server.child.pid)
    const liveIdle = await server.liveMemory()

    const answered = new Map()
    const cpuStart = cpuOf(server.child.pid)
    const benchCpuStart = process.cpuUsage()
    const loadStart = loadAverage()
    const withSubscribers = await offer(server.url, documents, headers, answered)
    // Every event delivered: the reader waits until each subscriber counted them all (or reports what is missing).
    reader.postMessage({ expected: withSubscribers.accepted, deadline: Date.now() + 120_000 })
    const [{ delivered, bytes, delays, arrivals }] = await once(reader, 'message')
    await reader.terminate()
    // The server's CPU for the writes and every delivery of them.
    const cpuWith = cpuOf(server.child.pid) - cpuStart
    // This process's (the writers' and the readers' threads): on the same cores as the server.
    const { user, system } = process.cpuUsage(benchCpuStart)
    // From the write's answer reaching its caller to the event reaching a subscriber (0 when the event came first).
    const afterAnswer = arrivals.map(([id, at]) => Math.max(0, at - answered.get(id)))
    const result = {
      subscribers: SUBSCRIBERS,
      offered: { writesPerSecond: RATE, seconds: SECONDS, bulk: BULK, singleShare: SINGLE_SHARE },
      loadAverage: { atStart: loadStart, atEnd: loadAverage() },
      delivered: `${delivered} of ${SUBSCRIBERS * withSubscribers.accepted}`,
      bytesPerEvent: Math.round(bytes / delivered),
      createdToDeliveryMs: { p50: percentile(delays, 50), p99: percentile(delays, 99), samples: delays.length },
      answerToDeliveryMs: { p50: percentile(afterAnswer, 50), p99: percentile(afterAnswer, 99) },
      idleBytesPerSubscription: {
        rss: Math.round((idle - before) / SUBSCRIBERS),
        liveAfterCollection: Math.round((liveIdle - liveBefore) / SUBSCRIBERS),
      },
      writes: { without, with: withSubscribers },
      serverCpuMsPerWrite: {
        without: Number((cpuWithout / without.accepted).toFixed(3)),
        withDeliveries: Number((cpuWith / withSubscribers.accepted).toFixed(3)),
      },
      benchCpuMsWithSubscribers: Math.round((user + system) / 1000),
      serverCpuMsWithSubscribers: cpuWith,
    }
    console.log(JSON.stringify(result, null, 2))
  } finally {
    server.child.kill('SIGTERM')
    // A profile is written as the server exits.
    await once(server.child, 'exit')
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (isMainThread) await main()
else await readStreams(workerData)
