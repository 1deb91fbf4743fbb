import t, { type Test } from 'tap'
import type { AddressInfo } from 'node:net'
import { app, upstreamsFrom, ConfigSchema } from '@quire/gateway'
import { createServer, loadConfig } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import { Rest, httpTransport, injectTransport, type Transport } from '../src/index.js'

const ADMIN = { username: 'admin', password: 'correct horse battery' }

/** The all-in-one server, listening on a loopback port so both transports reach the same process. */
async function quire(t: Test) {
  const resources = await testResources(t)
  const config = loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: resources.dataDir,
    QUIRE_ADMIN_USERNAME: ADMIN.username,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
  })
  const server = createServer({ logLevel: 'silent' })
  await server.register(app, { config, upstreams: upstreamsFrom(config), local: resources })
  await server.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => server.close())
  const { port } = server.server.address() as AddressInfo
  return {
    inProcess: injectTransport(server),
    overHttp: httpTransport(`http://127.0.0.1:${port}`, { timeoutMs: 5000 }),
  }
}

/** A script's session: log in, then preset the token and environment as a script context does. */
async function session(transport: Transport) {
  const anonymous = new Rest(transport)
  const login = (await anonymous.call('auth/login', 'POST', {}, ADMIN)) as { data: { accessToken: string } }
  return { anonymous, rest: new Rest(transport, { token: login.data.accessToken, environmentId: 'default' }) }
}

t.test('REST.call gives the same results in-process and over HTTP', async (t) => {
  const { inProcess, overHttp } = await quire(t)
  const results = []
  for (const transport of [inProcess, overHttp]) {
    const { anonymous, rest } = await session(transport)
    const calls = []
    calls.push([await rest.call('api/v2/usage-statistics/active-users', 'GET'), rest.lastStatus])
    calls.push([
      await rest.call('/api/v2/usage-statistics/active-users', 'GET', { 'environment-id': 'nowhere' }),
      rest.lastStatus,
    ])
    calls.push([
      await anonymous.call('api/v2/usage-statistics/active-users', 'GET', { 'environment-id': 'default' }),
      anonymous.lastStatus,
    ])
    calls.push([
      await rest.call('api/v2/packages/installations', 'GET', { Accept: 'application/json' }),
      rest.lastStatus,
    ])
    calls.push([
      await anonymous.call('api/v2/packages/installations', 'GET', { 'environment-id': 'default' }),
      anonymous.lastStatus,
    ])
    calls.push([await rest.call('api/v2/no-such-thing', 'POST', {}, { a: 1 }), rest.lastStatus])
    results.push(calls)
  }
  const [first, second] = results
  t.same(second, first, 'both transports answer alike')
  t.same(first?.[0], [{ status: 'ok', data: { activeUsers: 1 } }, 200])
  t.match(first?.[1], [{ status: 'error', error: 'forbidden' }, 403])
  t.match(first?.[2], [{ status: 'error', error: 'unauthorized' }, 401])
  t.match(first?.[3], [{ status: 'ok', data: [] }, 200], "the spec's package-installations call")
  t.match(first?.[4], [{ status: 'error', error: 'unauthorized' }, 401], 'installations refuse with 401')
  t.match(first?.[5], [{ status: 'error', error: 'not_found' }, 404], '4xx resolves, never throws')
})

t.test('a non-JSON answer resolves to its text; an unreachable base URL rejects', async (t) => {
  const { inProcess } = await quire(t)
  const rest = new Rest(inProcess)
  const ui = await rest.call('docs/', 'GET')
  t.equal(rest.lastStatus, 200)
  t.type(ui, 'string')
  t.match(ui as string, /<html|<!doctype/i)

  const nowhere = new Rest(httpTransport('http://127.0.0.1:9', { timeoutMs: 1000 }))
  await t.rejects(nowhere.call('api/v2/users'), 'a transport failure is not an HTTP status')
})
