// Import and export of a definition's documents against what a client does without them, in one run on the built
// all-in-one server (embedded store in a temp dir): importing N documents as NDJSON beside the same through bulk
// calls of 1000, and exporting them (NDJSON, JSON, CSV) beside paging the list 800 at a time with `next`.
// Prints documents/s and each ratio, and the server's peak RSS.
//   node bench/transfer.mjs   (after `npm run build`; BENCH_DOCUMENTS, default 20000)
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 20_000)
const ADMIN = { username: 'admin', password: 'bench-password-1' }

function startServer(dataDir) {
  const child = spawn(process.execPath, [join(ROOT, 'apps/gateway/dist/server.js')], {
    env: {
      PATH: process.env.PATH,
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: '0',
      QUIRE_DATA_DIR: dataDir,
      QUIRE_ADMIN_USERNAME: ADMIN.username,
      QUIRE_ADMIN_PASSWORD: ADMIN.password,
    },
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

const peakRss = (pid) => /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] / 1024

async function timed(work) {
  const start = performance.now()
  await work()
  return (performance.now() - start) / 1000
}

const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-transfer-'))
const { child, url } = await startServer(dataDir)
try {
  const login = await (
    await fetch(`${url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ADMIN),
    })
  ).json()
  const headers = { authorization: `Bearer ${login.data.accessToken}`, 'environment-id': 'default' }
  const call = async (method, path, body, type = 'application/json') => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, 'content-type': type },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
    return response
  }
  const fields = { title: { type: 'string' }, price: { type: 'number' }, tags: { type: 'array' } }
  for (const name of ['imported', 'bulked']) await call('POST', '/api/v2/document-definitions', { name, fields })
  const documents = Array.from({ length: DOCUMENTS }, (_, n) => ({ title: `book ${n}`, price: n % 97, tags: ['a'] }))
  const core = (name) => `/api/v2/document-definitions/${name}/documents`

  const importSeconds = await timed(() =>
    call(
      'POST',
      `${core('imported')}/import`,
      documents.map((d) => JSON.stringify(d)).join('\n'),
      'application/x-ndjson',
    ),
  )
  const bulkSeconds = await timed(async () => {
    for (let start = 0; start < DOCUMENTS; start += 1000) {
      const operations = documents.slice(start, start + 1000).map((body) => ({ op: 'create', body }))
      await call('POST', `${core('bulked')}/bulk`, { operations })
    }
  })
  const exports = {}
  for (const format of ['ndjson', 'json', 'csv']) {
    exports[format] = await timed(async () => {
      await (await fetch(`${url}${core('imported')}/export?format=${format}`, { headers })).arrayBuffer()
    })
  }
  const pagingSeconds = await timed(async () => {
    let next = 'limit=800'
    while (next) {
      const page = await (await fetch(`${url}${core('imported')}?${next}`, { headers })).json()
      next = page.pagination.next
    }
  })
  const rate = (seconds) => Math.round(DOCUMENTS / seconds)
  console.log(`${DOCUMENTS} documents; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`)
  console.log(`import NDJSON ${rate(importSeconds)} docs/s; bulk of 1000: ${rate(bulkSeconds)} docs/s`)
  console.log(`  import / bulk: ${(bulkSeconds / importSeconds).toFixed(2)}`)
  for (const [format, seconds] of Object.entries(exports)) {
    console.log(`export ${format} ${rate(seconds)} docs/s; / list paging: ${(pagingSeconds / seconds).toFixed(2)}`)
  }
  console.log(`list paging (800, next) ${rate(pagingSeconds)} docs/s`)
  console.log(`server peak RSS ${Math.round(peakRss(child.pid))} MB`)
} finally {
  child.kill('SIGTERM')
  rmSync(dataDir, { recursive: true, force: true })
}
