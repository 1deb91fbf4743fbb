/* eslint-disable no-template-curly-in-string -- the scripts under test are JavaScript text with template literals */
import t from 'tap'
import Fastify from 'fastify'
import { delegate } from '@quire/auth'
import { accessToken, createEnvironment, createUser } from '@quire/testing'
import { ENV, OTHER_ENV, type World, world } from './hardening/world.js'
import { build } from './helper.js'

/**
 * Scripts and credentials that no tenant can turn against anyone (issue 30), through the all-in-one gateway: the
 * tenant's administrator writes the actions, someone else sets them off.
 */

const DEFINITIONS = '/api/v2/document-definitions'

/** A definition of `acme` holding the tenant's actions, and a document of it. */
async function tenantActions(w: World, actions: { name: string; triggers: string[]; source: string }[]) {
  const definition = await w.setup(
    { method: 'POST', url: DEFINITIONS, payload: { name: `scripts-${actions[0]?.name}`, actions } },
    201,
  )
  const ddId = (definition.data as { _id: string })._id
  const documents = `${DEFINITIONS}/${ddId}/documents`
  return { ddId, documents }
}

/** A user of globex alone, with a session and a long-lived token it minted itself. */
async function victimOfGlobex(w: World) {
  const victim = await createUser(w.resources.store, { username: 'globex-victim', environments: { [OTHER_ENV]: {} } })
  const session = accessToken(w.resources.keys.privateKey, victim._id, { issuedAt: Date.now() - 1000 })
  const asVictim = { authorization: `Bearer ${session}`, 'environment-id': OTHER_ENV }
  const minted = await w.server.inject({
    method: 'POST',
    url: `/api/v2/users/${victim._id}/long-lived-tokens`,
    headers: asVictim,
    payload: { name: 'ci' },
  })
  if (minted.statusCode !== 201) throw new Error(`victim token: ${minted.statusCode} ${minted.body}`)
  const longLived = (minted.json().data as { token: string }[])[0]?.token ?? ''
  /** Whether the victim's session and long-lived token still work. */
  const credentialsWork = async () =>
    Promise.all(
      [session, longLived].map(
        async (token) =>
          (
            await w.server.inject({
              method: 'GET',
              url: `/api/v2/users/${victim._id}`,
              headers: { authorization: `Bearer ${token}`, 'environment-id': OTHER_ENV },
            })
          ).statusCode,
      ),
    )
  return { victimId: victim._id, credentialsWork }
}

t.test('a tenant’s manual action gets no super-administrator rights from who clicks it', async (t) => {
  const w = await world(t)
  const { victimId, credentialsWork } = await victimOfGlobex(w)
  const source = [
    'const victim = context.input.victim',
    "await REST.call(`api/v2/users/${victim}`, 'PATCH', {}, { active: true })",
    'const patched = REST.lastStatus',
    "await REST.call('auth/reset-2FA', 'POST', {}, { userId: victim })",
    'return [patched, REST.lastStatus]',
  ].join('\n')
  const { documents } = await tenantActions(w, [{ name: 'borrow', triggers: ['manual'], source }])
  const documentId = (
    (await w.setup({ method: 'POST', url: `${documents}/new`, payload: { title: 'bait' } }, 201)).data as {
      _id: string
    }
  )._id
  const click = (caller: 'administrator' | 'superAdministrator') =>
    w.call(caller, {
      method: 'POST',
      url: `${documents}/${documentId}/actions/borrow`,
      payload: { victim: victimId },
    })

  for (const caller of ['administrator', 'superAdministrator'] as const) {
    const run = await click(caller)
    t.equal(run.statusCode, 200, caller)
    t.same(run.json().data.result, [404, 403], `${caller}: the victim is nobody in acme; reset-2FA is no script's`)
  }
  t.same(await credentialsWork(), [200, 200], "the victim's session and long-lived token stay valid")
})

t.test('an after-create action manages none of its writer’s credentials', async (t) => {
  const w = await world(t)
  const memberId = w.userIds.member
  const minted = await w.call('member', {
    method: 'POST',
    url: `/api/v2/users/${memberId}/long-lived-tokens`,
    payload: { name: 'used elsewhere' },
  })
  t.equal(minted.statusCode, 201)
  const [longLived] = minted.json().data as { _id: string; token: string }[]
  const source = [
    'const tokens = `api/v2/users/${serverDocument._createdByUserId}/long-lived-tokens`',
    'const statuses = {}',
    "await REST.call(tokens, 'GET')",
    'statuses.list = REST.lastStatus',
    `await REST.call(\`\${tokens}/${longLived?._id}\`, 'DELETE')`,
    'statuses.revoke = REST.lastStatus',
    "await REST.call(tokens, 'POST', {}, { name: 'exfiltrated' })",
    'statuses.mint = REST.lastStatus',
    "await REST.call('auth/sign-out-everywhere', 'POST')",
    'statuses.signOut = REST.lastStatus',
    "await REST.call('api/v2/auth/password', 'POST', {}, { password: 'guess', newPassword: 'a long enough password' })",
    'statuses.password = REST.lastStatus',
    "await REST.call('auth/2fa/setup', 'POST')",
    'statuses.twoFactor = REST.lastStatus',
    "await REST.call('api/v2/environments', 'GET')",
    'statuses.environments = REST.lastStatus',
    'console.log(JSON.stringify(statuses))',
  ].join('\n')
  const { ddId, documents } = await tenantActions(w, [{ name: 'harvest', triggers: ['afterCreate'], source }])
  const created = await w.call('member', { method: 'POST', url: `${documents}/new`, payload: { title: 'hello' } })
  t.equal(created.statusCode, 201)

  // The run is recorded once it ends: the administrator reads it as any run.
  let logs: { message: string }[] | undefined
  for (let attempt = 0; attempt < 200 && !logs; attempt++) {
    const runs = await w.call('administrator', { method: 'GET', url: `${DEFINITIONS}/${ddId}/action-runs` })
    logs = (runs.json().data as { status: string; logs: { message: string }[] }[]).find(
      (run) => run.status === 'succeeded',
    )?.logs
    if (!logs) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.same(JSON.parse(logs?.[0]?.message ?? '{}'), {
    list: 403,
    revoke: 403,
    mint: 403,
    signOut: 403,
    password: 403,
    twoFactor: 403,
    environments: 403,
  })
  const still = await w.call('member', { method: 'GET', url: `/api/v2/users/${memberId}/long-lived-tokens` })
  t.same(
    still.json().data.map((token: { _id: string }) => token._id),
    [longLived?._id],
    'its token is still there, and no other',
  )
  const used = await w.call('member', {
    method: 'GET',
    url: `/api/v2/users/${memberId}`,
    headers: { authorization: `Bearer ${longLived?.token}` },
  })
  t.equal(used.statusCode, 200, 'and works')
})

t.test('a token an administrator minted gets nothing in an environment its user joins later', async (t) => {
  const w = await world(t)
  const userId = await w.newUser()
  const minted = await w.setup(
    { method: 'POST', url: `/api/v2/users/${userId}/long-lived-tokens`, payload: { name: 'by the administrator' } },
    201,
  )
  const token = (minted.data as { token: string }[])[0]?.token ?? ''
  const joined = await w.call('superAdministrator', {
    method: 'PATCH',
    url: `/api/v2/users/${userId}`,
    headers: { 'environment-id': OTHER_ENV },
    payload: { administrator: true },
  })
  t.equal(joined.statusCode, 200, 'the user becomes an administrator of globex')

  const withToken = (environmentId: string, options: { method: 'GET' | 'POST'; url: string; payload?: object }) =>
    w.server.inject({ ...options, headers: { authorization: `Bearer ${token}`, 'environment-id': environmentId } })
  const planted = await withToken(OTHER_ENV, {
    method: 'POST',
    url: '/api/v2/users',
    payload: { username: 'planted', password: 'a long enough password' },
  })
  t.equal(planted.statusCode, 403, 'no administrator created in globex')
  t.equal(planted.json().error, 'forbidden')
  t.equal((await withToken(OTHER_ENV, { method: 'GET', url: '/api/v2/users' })).statusCode, 403)
  t.equal((await withToken(ENV, { method: 'GET', url: `/api/v2/users/${userId}` })).statusCode, 200, 'acme works')
})

t.test('Authorization: Delegated from the network is 401 at the edge, local and proxied services alike', async (t) => {
  let upstreamCalls = 0
  const upstream = Fastify()
  upstream.all('/*', async () => {
    upstreamCalls++
    return { status: 'ok' }
  })
  t.teardown(() => upstream.close())
  const upstreamUrl = await upstream.listen({ port: 0, host: '127.0.0.1' })
  const { server, resources } = await build(t, { QUIRE_PACKAGES_URL: upstreamUrl })
  await createEnvironment(resources.store, ENV)
  const user = await createUser(resources.store, { superAdministrator: true, environments: { [ENV]: {} } })
  const delegation = delegate({ userId: user._id, environmentId: ENV, depth: 1 })
  t.teardown(() => delegation.release())
  const address = await server.listen({ port: 0, host: '127.0.0.1' })

  for (const [method, url] of [
    ['GET', '/api/v2/users'],
    ['POST', '/auth/login'],
    ['GET', '/api/v2/environments'],
    ['GET', '/api/v2/packages'],
  ] as const) {
    const res = await fetch(new URL(url, address), { method, headers: delegation.headers })
    t.equal(res.status, 401, `${method} ${url}`)
    t.match(await res.json(), { status: 'error', error: 'unauthorized' }, `${method} ${url}`)
    t.equal(res.headers.get('x-content-type-options'), 'nosniff', 'with the edge’s headers')
  }
  t.equal(upstreamCalls, 0, 'the proxied service never saw it')
  const inProcess = await server.inject({ method: 'GET', url: '/api/v2/users', headers: delegation.headers })
  t.equal(inProcess.statusCode, 200, 'the same handle in process: a script’s call')
})
