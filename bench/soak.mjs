// Soak: the built all-in-one server (embedded storage, logging at `info`) in its own process, seeded over
// HTTP, then held for SOAK_MINUTES (default 10) under mixed load — gets, lists, creates, patches — at about 70%
// of the maximum measured first. Reports errors (must be 0), p99 drift (first vs last minute) and RSS drift.
//   npm run soak             (SOAK_MINUTES, SOAK_DOCUMENTS=documents to seed, SOAK_LOAD=fraction of the maximum)
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10)
const DOCUMENTS = Number(process.env.SOAK_DOCUMENTS ?? 5000)
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7)
const MAX_SECONDS = 15
const CONNECTIONS = 50
const ADMIN = { username: 'admin', password: 'soak-password-1' }
const CORE = '/api/v2/document-definitions/soak/documents'
const children = new Set()
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')))

/** Starts a process and resolves with its port once its output names it (as `run.mjs` does). */
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

/** RSS, and its private part (without the file pages of lmdb's map, which grow with the data and can be dropped). */
const memoryMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)[1])
  return { rss: kb('VmRSS') / 1024, anon: kb('RssAnon') / 1024 }
}
const mean = (values) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0)

async function api(base, method, path, token, body) {
  const res = await fetch(new URL(path, base), {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}`, 'environment-id': 'default' } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  })
  const json = await res.json()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

async function seed(base, token, total) {
  const ids = new Array(total)
  let next = 0
  const worker = async () => {
    while (next < total) {
      const i = next++
      ids[i] = (
        await api(base, 'POST', `${CORE}/new`, token, {
          externalId: `ext-${i}`,
          category: `c${i % 50}`,
          price: i % 10_000,
          title: `Document ${i}`,
        })
      ).data._id
    }
  }
  await Promise.all(Array.from({ length: 32 }, worker))
  return ids
}

/**
 * The mix: 40% get, 30% list (plain or query + sort), 15% create, 15% patch; deterministic per request number.
 * Each request gets its own headers: autocannon writes `content-length` into the object it is given, and a GET
 * carrying a write's `content-length` would send the next request's bytes as its body.
 */
function mixedRequest(ids, headers) {
  let n = 0
  const lists = [
    `${CORE}?limit=20`,
    `${CORE}?limit=20&query=${encodeURIComponent('{"category":"c7"}')}&sort=${encodeURIComponent('{"price":-1}')}`,
  ]
  return () => {
    const i = n++
    const id = ids[(i * 7919) % ids.length]
    const slot = i % 20
    if (slot < 8) return { method: 'GET', path: `${CORE}/${id}`, headers: { ...headers } }
    if (slot < 14) return { method: 'GET', path: lists[i % 2], headers: { ...headers } }
    if (slot < 17) {
      return {
        method: 'POST',
        path: `${CORE}/new`,
        headers: { ...headers },
        body: JSON.stringify({ category: `c${i % 50}`, price: i % 1000, title: 'soak' }),
      }
    }
    return {
      method: 'PATCH',
      path: `${CORE}/${id}`,
      headers: { ...headers },
      body: JSON.stringify({ price: i % 1000 }),
    }
  }
}

const percentile = (sorted, p) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

/** Answers by status, so a run that is not clean says what went wrong. */
const statuses = new Map()

function run(options, onResponse) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)))
    instance.on('response', (client, statusCode, ...rest) => {
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1)
      onResponse?.(client, statusCode, ...rest)
    })
  })
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-soak-'))
  const env = {
    QUIRE_DATA_DIR: dataDir,
    // One process: its memory and CPU are what this measures.
    QUIRE_PROCESSES: '1',
    QUIRE_HOST: '127.0.0.1',
    QUIRE_PORT: '0',
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
  }
  const quire = await start(join(ROOT, 'apps/gateway/dist/server.js'), env)
  const token = (await api(quire.url, 'POST', '/auth/login', null, ADMIN)).data.accessToken
  const headers = { authorization: `Bearer ${token}`, 'environment-id': 'default', 'content-type': 'application/json' }
  await api(quire.url, 'POST', '/api/v2/document-definitions', token, {
    name: 'soak',
    indexes: [{ fields: { category: 1, price: -1 } }],
  })
  console.error(`seeding ${DOCUMENTS} documents`)
  const ids = await seed(quire.url, token, DOCUMENTS)

  const base = {
    url: quire.url,
    connections: CONNECTIONS,
    headers,
    requests: [{ method: 'GET', setupRequest: mixedRequest(ids, headers) }],
  }
  const max = await run({ ...base, duration: MAX_SECONDS })
  console.error(`statuses while measuring the maximum: ${JSON.stringify(Object.fromEntries(statuses))}`)
  statuses.clear()
  const rate = Math.max(1, Math.floor(max.requests.average * LOAD))
  console.error(
    `maximum ${max.requests.average.toFixed(0)} req/s (p99 ${max.latency.p99} ms, non-2xx ${max.non2xx}); soaking ${MINUTES} min at ${rate} req/s`,
  )

  const minutes = Array.from({ length: MINUTES }, () => ({ latencies: [], rss: [], anon: [], non2xx: 0 }))
  const began = Date.now()
  const minuteOf = () => Math.min(MINUTES - 1, Math.floor((Date.now() - began) / 60_000))
  const sampler = setInterval(() => {
    const { rss, anon } = memoryMb(quire.child.pid)
    minutes[minuteOf()].rss.push(rss)
    minutes[minuteOf()].anon.push(anon)
  }, 2000)
  const soak = await run(
    { ...base, duration: MINUTES * 60, overallRate: rate },
    (_client, statusCode, _bytes, responseTime) => {
      const minute = minutes[minuteOf()]
      minute.latencies.push(responseTime)
      if (statusCode < 200 || statusCode >= 300) minute.non2xx++
    },
  )
  clearInterval(sampler)
  await stop(quire)
  const storeMb = statSync(join(dataDir, 'records', 'data.mdb')).size / 2 ** 20
  rmSync(dataDir, { recursive: true, force: true })

  const summary = minutes.map((minute, i) => {
    const sorted = minute.latencies.sort((a, b) => a - b)
    return {
      minute: i + 1,
      requests: sorted.length,
      p50: Number(percentile(sorted, 50).toFixed(1)),
      p99: Number(percentile(sorted, 99).toFixed(1)),
      rssMb: mean(minute.rss),
      anonMb: mean(minute.anon),
      non2xx: minute.non2xx,
    }
  })
  const first = summary[0]
  const last = summary.at(-1)
  const errors = soak.errors + soak.timeouts + soak.non2xx
  console.log(
    `\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; ${CONNECTIONS} connections, ${DOCUMENTS} documents seeded.`,
  )
  console.log(
    `Maximum (mixed, ${MAX_SECONDS} s): ${max.requests.average.toFixed(0)} req/s. Soak: ${MINUTES} min at ${rate} req/s (${(LOAD * 100).toFixed(0)}%), ${soak.requests.total} requests.\n`,
  )
  console.log('| minute | requests | p50 ms | p99 ms | RSS MB | anon MB | non-2xx |')
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
  for (const m of summary) {
    console.log(
      `| ${m.minute} | ${m.requests} | ${m.p50} | ${m.p99} | ${m.rssMb.toFixed(0)} | ${m.anonMb.toFixed(0)} | ${m.non2xx} |`,
    )
  }
  console.log(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
  console.log(`\nerrors: ${errors} (socket errors ${soak.errors}, timeouts ${soak.timeouts}, non-2xx ${soak.non2xx})`)
  console.log(
    `p99 drift: ${first.p99} ms → ${last.p99} ms (${last.p99 - first.p99 >= 0 ? '+' : ''}${(last.p99 - first.p99).toFixed(0)} ms)`,
  )
  const drift = (from, to) =>
    `${from.toFixed(0)} MB → ${to.toFixed(0)} MB (${to - from >= 0 ? '+' : ''}${(to - from).toFixed(0)} MB)`
  console.log(`RSS drift: ${drift(first.rssMb, last.rssMb)}; private (anon): ${drift(first.anonMb, last.anonMb)}`)
  console.log(`records store at the end: ${storeMb.toFixed(0)} MB on disk (the soak's creates keep adding documents)`)
  if (errors > 0) process.exitCode = 1
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
