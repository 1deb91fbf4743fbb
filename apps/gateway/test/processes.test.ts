import { request } from 'node:http'
import t, { type Test } from 'tap'
import { startApp, type Running } from './e2e/processes.js'

const ADMIN = { username: 'admin', password: 'correct horse battery' }
const READY = /^Quire is ready/
const LISTENING = /Server listening at/

/** A request on a connection of its own, so that the server's processes take turns at answering. */
function call(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: options.method ?? 'GET', headers: options.headers, agent: false })
    req.once('error', reject)
    req.once('response', (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.end(options.body)
  })
}

/** The processes that answered requests so far, by the pid on their log lines. */
const answeredBy = (server: Running) =>
  new Set(
    server.logged
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => (JSON.parse(line) as { pid: number }).pid),
  )

async function twoProcesses(t: Test, env: Record<string, string> = {}): Promise<Running> {
  const server = await startApp('gateway', {
    QUIRE_DATA_DIR: t.testdir(),
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    QUIRE_PROCESSES: '2',
    ...env,
  })
  t.teardown(server.stop)
  // The primary's line and the processes' own come through one pipe, in no set order.
  if (!server.logged.some((line) => READY.test(line))) await server.waitForLog(READY)
  while (listening(server).length < 2) await server.waitForLog(LISTENING)
  return server
}

/** The pids of the processes that said they listen. */
const listening = (server: Running) =>
  server.logged.filter((line) => LISTENING.test(line)).map((line) => (JSON.parse(line) as { pid: number }).pid)

t.test('two processes on one port and one data dir: one bootstrap, then both answer', async (t) => {
  const server = await twoProcesses(t)
  t.equal(new Set(listening(server)).size, 2, 'two processes')
  t.equal(server.logged.filter((line) => line.includes('bootstrapped an empty store')).length, 1, 'one bootstrap')
  t.equal(server.logged.filter((line) => READY.test(line)).length, 1, 'one line says it is ready')

  const login = await call(server.url, '/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  t.equal(login.status, 200)
  const token = (JSON.parse(login.body) as { data: { accessToken: string } }).data.accessToken
  // A token signed by one process is good in the other: they share the data dir's keys.
  for (let i = 0; i < 4; i++) {
    const answer = await call(server.url, '/api/v2/document-definitions', {
      headers: { authorization: `Bearer ${token}`, 'environment-id': 'default' },
    })
    t.equal(answer.status, 200)
  }
  t.equal(answeredBy(server).size, 2, 'both processes answered')
})

t.test('the processes count one budget between them, not one each', async (t) => {
  const server = await twoProcesses(t, { QUIRE_RATE_LIMIT_PER_MINUTE: '6', QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: '6' })
  // The login has no credentials: the first of the address's six.
  const login = await call(server.url, '/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const token = (JSON.parse(login.body) as { data: { accessToken: string } }).data.accessToken
  const anonymous = []
  for (let i = 0; i < 12; i++) {
    anonymous.push(await call(server.url, '/api/v2/document-definitions', { headers: { 'environment-id': 'default' } }))
  }
  t.same(
    anonymous.map((answer) => answer.status),
    [...Array(5).fill(401), ...Array(7).fill(429)],
    'six requests without credentials in the minute, through both processes',
  )
  t.ok(Number(anonymous[11]!.headers['retry-after']) > 0, 'Retry-After')
  t.equal(answeredBy(server).size, 2, 'both processes answered')

  // Signed in: counted by user once the token is verified, apart from the address's budget.
  const statuses = []
  for (let i = 0; i < 12; i++) {
    const answer = await call(server.url, '/api/v2/document-definitions', {
      headers: { authorization: `Bearer ${token}`, 'environment-id': 'default' },
    })
    statuses.push(answer.status)
  }
  t.same(statuses, [...Array(6).fill(200), ...Array(6).fill(429)], "the user's six requests, through both processes")
})

/** Opens a change stream on a connection of its own: its status, and a way to close it. */
function subscribe(url: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; close: () => void }>((resolve, reject) => {
    const req = request(`${url}${path}`, { headers, agent: false })
    req.once('error', reject)
    req.once('response', (res) => {
      res.resume()
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() })
    })
    req.end()
  })
}

t.test('the processes count one cap of open change streams between them', async (t) => {
  const server = await twoProcesses(t, { QUIRE_CHANGE_FEED_PER_USER: '1' })
  const login = await call(server.url, '/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const token = (JSON.parse(login.body) as { data: { accessToken: string } }).data.accessToken
  const headers = { authorization: `Bearer ${token}`, 'environment-id': 'default' }
  const created = await call(server.url, '/api/v2/document-definitions', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'orders' }),
  })
  t.equal(created.status, 201)
  const path = `/api/v2/document-definitions/${(JSON.parse(created.body) as { data: { _id: string } }).data._id}/documents/changes`

  const open = await subscribe(server.url, path, headers)
  t.teardown(open.close)
  t.equal(open.status, 200)
  // The processes take new connections in turn: of two more, one reaches the process that holds none.
  const more = [await subscribe(server.url, path, headers), await subscribe(server.url, path, headers)]
  more.forEach((stream) => stream.close())
  t.same(
    more.map((stream) => stream.status),
    [429, 429],
    'the user has one open in the server',
  )
})

t.test('a process that dies is started again, and SIGTERM stops them all', async (t) => {
  const server = await twoProcesses(t)
  const pids = listening(server)
  const restarted = server.waitForLog(/a process exited: starting another/)
  const replaced = server.waitForLog(LISTENING)
  process.kill(pids[1]!, 'SIGKILL')
  t.match(JSON.parse(await restarted), { exited: pids[1], signal: 'SIGKILL' })
  const replacement = (JSON.parse(await replaced) as { pid: number }).pid
  t.notOk(pids.includes(replacement), 'a new process listens')
  for (let i = 0; i < 4; i++) t.equal((await call(server.url, '/health')).status, 200)

  await server.stop()
  t.equal(server.child.exitCode, 0, 'the server exits 0')
  t.equal(server.logged.filter((line) => line.includes('"msg":"closing"')).length, 3, 'the primary and both processes')
})
