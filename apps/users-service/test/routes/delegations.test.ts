import t from 'tap'
import type { InjectOptions } from 'fastify'
import { delegate } from '@quire/auth'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, ENV_B, headers } from '../helper.js'

/**
 * What a server script's REST.call may not do (issue 30), sent as its calls are: in process, with the delegation's
 * headers. Credentials and accounts are never a script's to manage, its own user's included; a super-administrator's
 * rights never reach a script.
 */

const PASSWORD = 'a long enough password'
const AUTH_PREFIXES = ['/auth', '/api/v2/auth'] as const

t.test('a script acting for a member manages none of its credentials, nor anyone’s', async (t) => {
  const { call, user, resources, adminId, token } = await build(t)
  const asAdmin = headers(token(adminId), ENV_A)
  const created = await call({
    method: 'POST',
    url: '/api/v2/users',
    headers: asAdmin,
    payload: { username: 'member', password: PASSWORD },
  })
  t.equal(created.statusCode, 201)
  const memberId: string = created.json().data[0]._id
  const memberToken = token(memberId)
  const { record: colleague } = await user({ environments: { [ENV_A]: {} } })
  const tokensOf = (userId: string) => `/api/v2/users/${userId}/long-lived-tokens`
  const minted = await call({
    method: 'POST',
    url: tokensOf(memberId),
    headers: headers(memberToken, ENV_A),
    payload: { name: 'used in env-b too' },
  })
  const [longLived] = minted.json().data as { _id: string; token: string }[]
  if (!longLived) throw new Error('no token minted')

  // The member saves a document; its after-create action, written by a hostile administrator, runs as the member.
  const delegation = delegate({ userId: memberId, environmentId: ENV_A, depth: 1 })
  t.teardown(() => delegation.release())
  const requests: InjectOptions[] = [
    { method: 'GET', url: tokensOf(memberId) },
    { method: 'POST', url: tokensOf(memberId), payload: { name: 'exfiltrated' } },
    { method: 'DELETE', url: `${tokensOf(memberId)}/${longLived._id}` },
    { method: 'GET', url: tokensOf(colleague._id) },
    ...AUTH_PREFIXES.flatMap((prefix): InjectOptions[] => [
      { method: 'POST', url: `${prefix}/login`, payload: { username: 'member', password: PASSWORD } },
      { method: 'POST', url: `${prefix}/reset-password`, payload: { username: 'member' } },
      { method: 'POST', url: `${prefix}/reset-password/confirm`, payload: { token: 'x'.repeat(43), password: 'new' } },
      { method: 'POST', url: `${prefix}/password`, payload: { password: PASSWORD, newPassword: `${PASSWORD}!` } },
      { method: 'POST', url: `${prefix}/2fa/setup` },
      { method: 'POST', url: `${prefix}/2fa/enable`, payload: { code: '123456', password: PASSWORD } },
      { method: 'POST', url: `${prefix}/2fa/disable`, payload: { password: PASSWORD } },
      { method: 'POST', url: `${prefix}/2fa/recovery-codes`, payload: { password: PASSWORD } },
      { method: 'POST', url: `${prefix}/sign-out-everywhere` },
      { method: 'POST', url: `${prefix}/reset-2FA`, payload: { userId: memberId } },
    ]),
    { method: 'GET', url: '/api/v2/environments' },
    { method: 'POST', url: '/api/v2/environments', payload: { _id: 'planted', name: 'Planted' } },
  ]
  for (const request of requests) {
    for (const environment of [{}, { 'environment-id': undefined }]) {
      const label = `${request.method} ${request.url}${'environment-id' in environment ? ' (no environment-id)' : ''}`
      const sent = { ...delegation.headers, ...environment }
      const res = await call({
        ...request,
        headers: Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== undefined)),
      })
      t.equal(res.statusCode, 403, label)
      t.equal(res.json().error, 'forbidden', label)
    }
  }

  // Nothing changed: the member's sessions, token and password all still work.
  t.equal(
    (await call({ method: 'GET', url: `/api/v2/users/${memberId}`, headers: headers(longLived.token, ENV_A) }))
      .statusCode,
    200,
    'its long-lived token',
  )
  t.equal(
    (await call({ method: 'GET', url: tokensOf(memberId), headers: headers(memberToken, ENV_A) })).json().data.length,
    1,
    'one token, none minted',
  )
  t.equal(
    (await call({ method: 'GET', url: `/api/v2/users/${memberId}`, headers: headers(memberToken, ENV_A) })).statusCode,
    200,
    'its session',
  )
  const login = await call({ method: 'POST', url: '/auth/login', payload: { username: 'member', password: PASSWORD } })
  t.equal(login.statusCode, 200, 'its password')
  const stored = await COLLECTIONS.users.in(resources.store).findOne({ _id: memberId })
  t.equal(stored?.authentication.totpSecret, undefined, 'no 2FA secret set up')
  t.equal(await COLLECTIONS.environments.in(resources.store).findOne({ _id: 'planted' }), null, 'no environment')
})

t.test('a super-administrator’s script administers its run’s environment, and no further', async (t) => {
  const { call, user, resources, adminId } = await build(t)
  const { record: victim, token: victimToken } = await user({ environments: { [ENV_B]: { active: false } } })
  const { record: member } = await user({ environments: { [ENV_A]: {} } })
  const delegation = delegate({ userId: adminId, environmentId: ENV_A, depth: 1 })
  t.teardown(() => delegation.release())
  const asScript = (request: InjectOptions) => call({ ...request, headers: delegation.headers })

  const activated = await asScript({ method: 'PATCH', url: `/api/v2/users/${victim._id}`, payload: { active: true } })
  t.equal(activated.statusCode, 404, 'a user of env-b is nobody in env-a')
  const reset = await asScript({ method: 'POST', url: '/auth/reset-2FA', payload: { userId: victim._id } })
  t.equal(reset.statusCode, 403)
  const users = COLLECTIONS.users.in(resources.store)
  const untouched = await users.findOne({ _id: victim._id })
  t.same(untouched?.profile.environments[ENV_B]?.active, false, 'the victim stays inactive in env-b')
  t.equal(untouched?.profile.environments[ENV_A], undefined, 'and out of env-a')
  t.equal(
    (await call({ method: 'GET', url: '/api/v2/environments', headers: headers(victimToken) })).statusCode,
    200,
    "the victim's session stays valid",
  )

  const promoted = await asScript({
    method: 'PATCH',
    url: `/api/v2/users/${member._id}`,
    payload: { administrator: true },
  })
  t.equal(promoted.statusCode, 200, 'in env-a it administers')
  const made = await asScript({ method: 'POST', url: '/api/v2/users', payload: { username: 'made-by-a-script' } })
  t.equal(made.statusCode, 201)
  t.same(Object.keys((await users.findOne({ username: 'made-by-a-script' }))?.profile.environments ?? {}), [ENV_A])
})
