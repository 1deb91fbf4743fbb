import t, { type Test } from 'tap'
import { currentAccount } from '@quire/records'
import { createServer, DEFAULT_WORK_QUEUE_PER_ENVIRONMENT } from '@quire/service-kit'
import { createEnvironment, createUser, accessToken, headers, testResources } from '@quire/testing'
import { recordsIdentity } from '@quire/identity'
import { authPlugin, workAccountPlugin, type WorkAccountOptions } from '../src/index.js'

/** A route checking the environment that answers the work account its handler runs on (null for none). */
async function build(t: Test, options: WorkAccountOptions = {}) {
  const resources = await testResources(t)
  const server = createServer({ logLevel: 'silent' })
  await server.register(authPlugin, {
    keys: { publicKey: resources.keys.publicKey },
    identity: recordsIdentity(resources.store),
  })
  await server.register(workAccountPlugin, options)
  server.get('/env', { onRequest: server.auth.requireEnvironment }, async () => currentAccount() ?? null)
  t.teardown(() => server.close())
  await createEnvironment(resources.store, 'acme')
  await createEnvironment(resources.store, 'globex')
  const user = await createUser(resources.store, { environments: { acme: {}, globex: {} } })
  const token = accessToken(resources.keys.privateKey, user._id)
  const get = (url: string, environmentId: string) =>
    server.inject({ method: 'GET', url, headers: headers(token, environmentId) })
  return { server, get }
}

// Alone, an environment runs without an account (nothing to share out): each test keeps two at work at once.
const ENVIRONMENTS = Array.from({ length: 8 }, (_, i) => (i % 2 ? 'globex' : 'acme'))

t.test("requests of two environments at once run on their environment's account, with its queue limit", async (t) => {
  const { get } = await build(t, { queueLimit: 7 })
  const answers = await Promise.all(ENVIRONMENTS.map((id) => get('/env', id)))
  t.same(
    answers.map((answer) => answer.statusCode),
    Array(8).fill(200),
  )
  const accounts = answers.map((answer) => answer.json<{ id: string; queueLimit: number } | null>())
  accounts.forEach((account, i) => {
    if (account !== null) t.same(account, { id: ENVIRONMENTS[i], queueLimit: 7 }, `request ${i}: its own account`)
  })
  for (const id of ['acme', 'globex']) {
    t.ok(
      accounts.some((account) => account?.id === id),
      `${id} is charged`,
    )
  }
})

t.test('without a queue limit given, the default one', async (t) => {
  const { get } = await build(t)
  const accounts = (await Promise.all(ENVIRONMENTS.map((id) => get('/env', id)))).map((answer) => answer.json())
  t.ok(accounts.some((account) => account !== null))
  for (const account of accounts) {
    if (account !== null) t.equal(account.queueLimit, DEFAULT_WORK_QUEUE_PER_ENVIRONMENT)
  }
})

t.test('an environment-id on a route that does not check it charges no environment', async (t) => {
  const { server, get } = await build(t)
  // A header naming an environment the caller cannot reach goes to a route without `requireEnvironment`, once
  // acme and globex are at work: were it charged, its handler would run on that environment's account.
  let atWork = () => {}
  const othersAtWork = new Promise<void>((resolve) => (atWork = resolve))
  server.addHook('preHandler', async (request) => {
    if (request.url === '/env') atWork()
  })
  server.get('/unchecked', { onRequest: [server.auth.authenticate, () => othersAtWork] }, async () => {
    return currentAccount() ?? null
  })
  const calls = Array.from({ length: 12 }, (_, i) => ['acme', 'globex', 'initech'][i % 3] ?? '')
  const answers = await Promise.all(calls.map((id) => get(id === 'initech' ? '/unchecked' : '/env', id)))
  t.same(
    answers.map((answer) => answer.statusCode),
    Array(12).fill(200),
  )
  calls.forEach((id, i) => {
    const account = answers[i]?.json<{ id: string } | null>()
    if (id === 'initech') t.equal(account, null, `request ${i}: no account`)
    else if (account !== null) t.equal(account?.id, id, `request ${i}: its own account`)
  })
})
