/* eslint-disable no-template-curly-in-string -- the script under test is JavaScript text with a template literal */
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import t from 'tap'
import { startApp } from './e2e/processes.js'
import { ADMIN } from './helper.js'

/** The platform's own example, exactly as its documentation writes it. */
const PLATFORM_EXAMPLE =
  "const result = REST.call('api/v2/packages/installations','GET',{Accept:'application/json',Authorization:`Bearer ${authToken.accessToken}`,'environment-id':serverDocument._environmentId},null)"

/** A loopback port free now: the gateway's, which the documents service must know before the gateway starts. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

t.test('distributed, a platform script reaches every service through the gateway as its delegation', async (t) => {
  const dataDir = t.testdir({})
  const gatewayPort = await freePort()
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`
  const env = {
    QUIRE_DATA_DIR: dataDir,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    QUIRE_RUN_TOKEN_KEY: randomBytes(32).toString('base64'),
  }
  const users = await startApp('users-service', env)
  t.teardown(users.stop)
  const [documents, packages] = await Promise.all([
    startApp('documents-service', { ...env, QUIRE_SCRIPT_GATEWAY_URL: gatewayUrl }),
    startApp('packages-service', env),
  ])
  t.teardown(documents.stop)
  t.teardown(packages.stop)
  const gateway = await startApp(
    'gateway',
    { QUIRE_DOCUMENTS_URL: documents.url, QUIRE_USERS_URL: users.url, QUIRE_PACKAGES_URL: packages.url },
    gatewayPort,
  )
  t.teardown(gateway.stop)

  const login = await fetch(`${gatewayUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  })
  const { accessToken } = ((await login.json()) as { data: { accessToken: string } }).data
  const headers = { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' }
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } }
  }

  const source = [
    PLATFORM_EXAMPLE,
    'const installations = REST.lastStatus',
    "const me = REST.call('api/v2/users?limit=1', 'GET', { Authorization: `Bearer ${authToken.accessToken}` }, null)",
    'return { result, installations, users: REST.lastStatus, definition: serverDocument._documentDefinitionName, token: authToken.accessToken }',
  ].join('\n')
  const definition = await post('/api/v2/document-definitions', {
    name: 'distributed-orders',
    actions: [{ name: 'installed', triggers: ['manual'], source }],
  })
  t.equal(definition.status, 201)
  const documentsUrl = `/api/v2/document-definitions/${String(definition.body.data._id)}/documents`
  const created = await post(`${documentsUrl}/new`, { title: 'one' })
  t.equal(created.status, 201)
  const clicked = await post(`${documentsUrl}/${String(created.body.data._id)}/actions/installed`, {})
  t.equal(clicked.status, 200, JSON.stringify(clicked.body))
  const {
    result,
    installations,
    users: usersStatus,
    definition: name,
    token,
  } = clicked.body.data.result as {
    result: unknown
    installations: number
    users: number
    definition: string
    token: string
  }
  t.equal(installations, 200, 'the packages service answers the script')
  t.match(result, { status: 'ok', data: Array })
  t.equal(usersStatus, 200, 'and so does the users service')
  t.equal(name, 'distributed-orders')

  // Back in the documents service, which ran it: the token died with its run.
  const after = await fetch(`${gatewayUrl}/api/v2/document-definitions`, {
    headers: { authorization: `Bearer ${token}`, 'environment-id': 'default' },
  })
  t.equal(after.status, 401, 'the run token stops working when the run ends')
})
