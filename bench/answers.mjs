/* eslint-disable no-template-curly-in-string -- the action under test is JavaScript text with template literals */
// The memory one action run can make the server hold through REST.call answers (issue 30): the built all-in-one
// server (embedded store in a temp dir, logging at `info`) in its own process, one manual run making 24 REST.calls
// at once, each downloading the same attachment. Printed: the server's RSS before the run, its peak during it
// (the kernel's high-water mark, reset just before), their ratio, and what the calls answered. Each scenario on
// a fresh server:
//   - `refused`: a 20 MiB attachment, the default limits (an answer may be 8 MiB): the repro.
//   - `read`: a 6 MiB attachment, under the limit: every answer read, within QUIRE_SCRIPT_ANSWER_BUDGET_MB.
//   node bench/answers.mjs   (after `npm run build`; BENCH_CALLS, BENCH_REPEAT runs per scenario, default 3)
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CALLS = Number(process.env.BENCH_CALLS ?? 24)
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3)
const ADMIN = { username: 'admin', password: 'bench-password-1' }
const MIB = 1024 * 1024
const SCENARIOS = [
  { name: 'refused', size: 20 * MIB },
  { name: 'read', size: 6 * MIB },
]

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

async function api(url, method, path, headers, body, contentType = 'application/json') {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': contentType, ...headers },
    body: body === undefined || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  })
  const answer = await response.json()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

const status = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8')
const mb = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)[1]) / 1024
/** Resets the kernel's peak RSS of `pid` (VmHWM) to its current RSS. */
const resetPeak = (pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5')

async function scenario({ name, size }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'quire-bench-answers-'))
  const server = await startServer({
    QUIRE_DATA_DIR: dataDir,
    // One process: its memory and CPU are what this measures.
    QUIRE_PROCESSES: '1',
    QUIRE_HOST: '127.0.0.1',
    QUIRE_PORT: '0',
    QUIRE_LOG_LEVEL: 'info',
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
  })
  try {
    const { accessToken } = (await api(server.url, 'POST', '/auth/login', {}, ADMIN)).data
    const headers = { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' }
    const core = '/api/v2/document-definitions/bench/documents'
    await api(server.url, 'POST', '/api/v2/document-definitions', headers, {
      name: 'bench',
      actions: [
        {
          name: 'download',
          triggers: ['manual'],
          source: [
            `const path = "${core.slice(1)}/" + serverDocument._id + "/attachments/" + context.input.attachmentId`,
            `const calls = Array.from({ length: ${CALLS} }, () =>`,
            '  REST.call(path).then((body) => `read ${body.length}`, (error) => String(error).slice(0, 80)))',
            'const answers = await Promise.all(calls)',
            'return Object.entries(answers.reduce((counts, each) => ({ ...counts, [each]: (counts[each] ?? 0) + 1 }), {}))',
          ].join('\n'),
        },
      ],
    })
    const { _id } = (await api(server.url, 'POST', `${core}/new`, headers, { title: 'bench' })).data
    const boundary = 'quirebenchboundary'
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.txt"\r\ncontent-type: text/plain\r\n\r\n`,
      ),
      Buffer.alloc(size, 'x'),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ])
    const uploaded = await api(
      server.url,
      'POST',
      `${core}/${_id}/attachments?valuePath=file`,
      headers,
      multipart,
      `multipart/form-data; boundary=${boundary}`,
    )
    const attachmentId = uploaded.data.attachments[0]._id
    const pid = server.child.pid
    const rows = []
    for (let round = 0; round < REPEAT; round++) {
      const before = mb(status(pid), 'VmRSS')
      resetPeak(pid)
      const response = await fetch(`${server.url}${core}/${_id}/actions/download`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ attachmentId }),
      })
      const answer = await response.json()
      const peak = mb(status(pid), 'VmHWM')
      const outcome =
        response.status === 200 ? JSON.stringify(answer.data.result) : `${response.status} ${answer.description}`
      rows.push({ scenario: name, 'RSS before MB': Math.round(before), 'peak MB': Math.round(peak) })
      rows.at(-1)['peak / before'] = Number((peak / before).toFixed(2))
      rows.at(-1).answers = outcome.slice(0, 120)
    }
    return rows
  } finally {
    server.child.kill('SIGTERM')
    await new Promise((resolve) => server.child.once('exit', resolve))
    rmSync(dataDir, { recursive: true, force: true })
  }
}

console.log(`${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${CALLS} REST.calls at once, ${REPEAT} runs`)
const rows = []
for (const each of SCENARIOS) rows.push(...(await scenario(each)))
console.table(rows)
