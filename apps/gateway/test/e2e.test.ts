import { once } from 'node:events'
import { connect } from 'node:net'
import t from 'tap'
import { startApp, type Running } from './e2e/processes.js'
import { runScenarios, type Step } from './e2e/scenarios.js'

const ADMIN = { username: 'admin', password: 'correct horse battery' }
const SERVICES = { documents: 'documents-service', users: 'users-service', packages: 'packages-service' } as const
type Service = keyof typeof SERVICES

async function allInOne(dataDir: string): Promise<Running> {
  return startApp('gateway', { QUIRE_DATA_DIR: dataDir, QUIRE_ADMIN_PASSWORD: ADMIN.password })
}

/**
 * Three services as separate processes on one data dir, and a gateway proxying to them by URL.
 * `documentsEnv` adds to the documents service's environment (e.g. a log level).
 */
async function distributed(dataDir: string, documentsEnv: Record<string, string> = {}) {
  const env = { QUIRE_DATA_DIR: dataDir, QUIRE_ADMIN_PASSWORD: ADMIN.password }
  // Users first: it bootstraps the store the others then open.
  const users = await startApp(SERVICES.users, env)
  const [documents, packages] = await Promise.all([
    startApp(SERVICES.documents, { ...env, ...documentsEnv }),
    startApp(SERVICES.packages, env),
  ])
  const services: Record<Service, Running> = { documents, users, packages }
  const gateway = await startApp('gateway', {
    QUIRE_DOCUMENTS_URL: documents.url,
    QUIRE_USERS_URL: users.url,
    QUIRE_PACKAGES_URL: packages.url,
  })
  return { services, gateway, stop: () => Promise.all([gateway, ...Object.values(services)].map((p) => p.stop())) }
}

const find = (steps: Step[], name: string) => steps.find((step) => step.name === name)

t.test('the same scenarios answer identically all-in-one and distributed', async (t) => {
  const single = await allInOne(t.testdir({}))
  t.teardown(single.stop)
  const stack = await distributed(t.testdir({}))
  t.teardown(stack.stop)

  const local = await runScenarios(single.url, ADMIN)
  const remote = await runScenarios(stack.gateway.url, ADMIN)
  t.same(remote, local, 'identical transcripts')

  t.match(find(local, 'login'), { status: 200 })
  t.match(find(local, 'no environment'), { status: 400, body: { error: 'environment_id_missing' } })
  t.match(find(local, 'no token'), { status: 401, body: { error: 'unauthorized' } })
  t.match(find(local, 'unknown route'), { status: 404, body: { error: 'not_found' } })
  t.match(find(local, 'definition not found'), {
    status: 404,
    body: { error: 'document_definition_not_found_for_id_or_name' },
  })
  t.match(find(local, 'get by externalId'), { status: 200, body: { externalId: 'ext-1' } })
  t.match(find(local, 'get by id, not modified'), { status: 304, contentType: '', body: '' })
  t.match(find(local, 'list page 3'), { status: 200, body: { pagination: { hasNext: false } } })
  t.match(find(local, 'patch stale'), { status: 412, body: { error: 'precondition_failed' } })
  t.match(find(local, 'upload'), { status: 201 })
  t.match(find(local, 'download range'), { status: 206, body: 'hello' })
  t.match(find(local, 'copied document'), { status: 200, body: { copies: [{ _fileName: 'hello.txt' }] } })
  t.match(find(local, 'installations'), {
    status: 200,
    body: { data: [{ packageLabel: 'CRM', versionNumber: '1.2.0', latestVersionNumber: '1.2.0' }] },
  })
  t.match(find(local, 'active users'), { status: 200, body: { data: { activeUsers: 2 } } })
  for (const step of local) {
    if (step.status >= 400) {
      t.match(
        step.body,
        { status: 'error', error: String, description: String, userDescription: String, message: String },
        `${step.name}: envelope`,
      )
    }
  }
})

t.test('a service that is down gives 502 while the others answer, and recovers when it returns', async (t) => {
  const dataDir = t.testdir({})
  const stack = await distributed(dataDir)
  t.teardown(stack.stop)
  const base = stack.gateway.url
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const { data } = (await login.json()) as { data: { accessToken: string } }
  const headers = { authorization: `Bearer ${data.accessToken}`, 'environment-id': 'default' }
  const definitions = () => fetch(`${base}/api/v2/document-definitions`, { headers })

  t.equal((await definitions()).status, 200)
  const port = stack.services.documents.port
  await stack.services.documents.stop()
  const down = await definitions()
  t.equal(down.status, 502)
  t.match(await down.json(), { status: 'error', error: 'service_unavailable' })
  const ready = await fetch(`${base}/ready`)
  t.equal(ready.status, 503, 'the gateway is not ready while a service it routes to is down')
  t.match(await ready.json(), { error: 'service_unavailable', message: /documents/ })
  const others = await fetch(`${base}/api/v2/usage-statistics/active-users`, { headers })
  t.equal(others.status, 200, 'the packages service keeps answering')

  const back = await startApp(SERVICES.documents, { QUIRE_DATA_DIR: dataDir }, port)
  t.teardown(back.stop)
  t.equal((await definitions()).status, 200, 'answers again on the same port')
})

t.test('graceful shutdown: a request in flight finishes, later ones are refused cleanly', async (t) => {
  // At `debug` the service logs each request on arrival, before its body is read.
  const stack = await distributed(t.testdir({}), { QUIRE_LOG_LEVEL: 'debug' })
  t.teardown(stack.stop)
  const base = stack.gateway.url
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const { data } = (await login.json()) as { data: { accessToken: string } }
  const headers = {
    authorization: `Bearer ${data.accessToken}`,
    'environment-id': 'default',
    'content-type': 'application/json',
  }
  t.equal(
    (
      await fetch(`${base}/api/v2/document-definitions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'notes' }),
      })
    ).status,
    201,
  )

  // A create whose body arrives in two halves; the service is told to stop between them.
  let sendRest: () => void = () => undefined
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"text":'))
      sendRest = () => {
        controller.enqueue(new TextEncoder().encode('"written during shutdown"}'))
        controller.close()
      }
    },
  })
  const documents = stack.services.documents
  // The request is in flight once the service has logged it (headers parsed, body still coming).
  const received = documents.waitForLog(/^(?=.*"incoming request")(?=.*notes\/documents\/new)/)
  const inFlight = fetch(`${base}/api/v2/document-definitions/notes/documents/new`, {
    method: 'POST',
    headers,
    body,
    duplex: 'half',
  } as RequestInit)
  await received
  documents.child.kill('SIGTERM')
  sendRest()
  const res = await inFlight
  t.equal(res.status, 201, 'the in-flight create completes')
  await documents.stop()
  const after = await fetch(`${base}/api/v2/document-definitions`, { headers })
  t.equal(after.status, 502, 'a new request is refused with the envelope, not a hung socket')
  t.match(await after.json(), { error: 'service_unavailable' })
})

t.test('SIGTERM: a request still in progress at the shutdown deadline is ended and the process exits', async (t) => {
  const server = await startApp('gateway', {
    QUIRE_DATA_DIR: t.testdir({}),
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    // At `debug` each request is logged on arrival. Only the shutdown deadline can end the request here.
    QUIRE_LOG_LEVEL: 'debug',
    QUIRE_SHUTDOWN_TIMEOUT_MS: '200',
    QUIRE_REQUEST_TIMEOUT_MS: '3600000',
  })
  t.teardown(server.stop)
  const login = await fetch(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const { data } = (await login.json()) as { data: { accessToken: string } }

  // A create whose body never completes (a client stalled mid-upload).
  const socket = connect({ port: server.port, host: '127.0.0.1' })
  let answered = ''
  socket.setEncoding('utf8').on('data', (chunk: string) => (answered += chunk))
  const ended = once(socket, 'close')
  const arrived = server.waitForLog(/^(?=.*"incoming request")(?=.*document-definitions)/)
  socket.write(
    'POST /api/v2/document-definitions HTTP/1.1\r\nHost: quire\r\nContent-Type: application/json\r\n' +
      `Authorization: Bearer ${data.accessToken}\r\nEnvironment-Id: default\r\nContent-Length: 100\r\n\r\n{"name":`,
  )
  await arrived

  const exited = once(server.child, 'exit')
  server.child.kill('SIGTERM')
  const [code] = (await exited) as [number | null]
  await ended
  t.equal(code, 0, 'a clean exit: the stores were closed')
  t.equal(answered, '', 'the stalled request got no answer: its connection was ended')
})
