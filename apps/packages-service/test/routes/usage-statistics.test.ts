import t from 'tap'
import { IDENTITY_COLLECTIONS } from '@quire/identity'
import { createEnvironment, createUser } from '@quire/testing'
import { build } from '../helper.js'

const url = '/api/v2/usage-statistics/active-users'

t.test('active users follow additions, deactivations and reactivations, per environment', async (t) => {
  const { server, store, signIn } = await build(t)
  await createEnvironment(store, 'env_a')
  await createEnvironment(store, 'env_b')
  const member = await signIn({ environments: { env_a: {} } })
  const activeUsers = async (environmentId: string, caller = member) => {
    const res = await server.inject({ method: 'GET', url, headers: caller.headers(environmentId) })
    t.equal(res.statusCode, 200)
    return res.json()
  }

  t.same(await activeUsers('env_a'), { status: 'ok', data: { activeUsers: 1 } })
  const other = await createUser(store, { environments: { env_a: {}, env_b: {} } })
  await createUser(store, { environments: { env_a: { active: false } } })
  await createUser(store, { superAdministrator: true })
  t.same((await activeUsers('env_a')).data, { activeUsers: 2 }, 'inactive members and outsiders do not count')

  // The users service changes a user's activity; this service only counts, through `Identity.activeUsers`.
  const users = IDENTITY_COLLECTIONS.users.in(store)
  await users.updateOne(
    { _id: other._id },
    { $set: { 'profile.environments.env_a.active': false, activeEnvironmentIds: ['env_b'] } },
  )
  t.same((await activeUsers('env_a')).data, { activeUsers: 1 }, 'deactivated')
  await users.updateOne(
    { _id: other._id },
    { $set: { 'profile.environments.env_a.active': true, activeEnvironmentIds: ['env_a', 'env_b'] } },
  )
  t.same((await activeUsers('env_a')).data, { activeUsers: 2 }, 'reactivated')

  const memberOfB = await signIn({ environments: { env_b: {} } })
  t.same((await activeUsers('env_b', memberOfB)).data, { activeUsers: 2 }, 'environment B counts its own users')
})

t.test('active users: environment and token are required', async (t) => {
  const { server, store, signIn } = await build(t)
  await createEnvironment(store, 'env_a')
  await createEnvironment(store, 'env_b')
  const member = await signIn({ environments: { env_a: {} } })

  const noEnvironment = await server.inject({ method: 'GET', url, headers: member.headers() })
  t.equal(noEnvironment.statusCode, 400)
  t.equal(noEnvironment.json().error, 'environment_id_missing')

  const noToken = await server.inject({ method: 'GET', url, headers: { 'environment-id': 'env_a' } })
  t.equal(noToken.statusCode, 401)
  t.equal(noToken.json().error, 'unauthorized')

  const otherEnvironment = await server.inject({ method: 'GET', url, headers: member.headers('env_b') })
  t.equal(otherEnvironment.statusCode, 403)
  t.equal(otherEnvironment.json().error, 'forbidden')
})
