import t, { type Test } from 'tap'
import { createEnvironment, notingWorkAccounts } from '@quire/testing'
import { build } from '../helper.js'

/** Two environments and their administrators, on a store that notes the work account of each call. */
async function setup(t: Test) {
  const seen: Array<string | undefined> = []
  const h = await build(t, {}, { wrapStore: notingWorkAccounts(seen) })
  await createEnvironment(h.store, 'env_a')
  await createEnvironment(h.store, 'env_b')
  const adminA = await h.signIn({ environments: { env_a: { administrator: true } } })
  const adminB = await h.signIn({ environments: { env_b: { administrator: true } } })
  seen.length = 0
  return { ...h, seen, adminA, adminB }
}

const installations = '/api/v2/packages/installations'

// Alone, an environment runs without an account (nothing to share out): each test keeps two at work at once.

t.test("requests of two environments at once run on their own environment's account", async (t) => {
  const { server, seen, adminA, adminB } = await setup(t)
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      server.inject({
        method: 'GET',
        url: installations,
        headers: i % 2 ? adminB.headers('env_b') : adminA.headers('env_a'),
      }),
    ),
  )
  t.same(
    answers.map((answer) => answer.statusCode),
    Array(8).fill(200),
  )
  t.ok(seen.includes('env_a') && seen.includes('env_b'), 'both environments are charged for their store work')
  t.same(
    seen.filter((id) => id !== undefined && id !== 'env_a' && id !== 'env_b'),
    [],
    'no other account',
  )
})

t.test('an environment-id on a route that does not check it charges no environment', async (t) => {
  const { server, seen, adminA, adminB } = await setup(t)
  // The marketplace takes no environment-id: B's header there is unchecked, while A reads its installations.
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      i % 2
        ? server.inject({ method: 'GET', url: '/api/v2/packages', headers: adminB.headers('env_b') })
        : server.inject({ method: 'GET', url: installations, headers: adminA.headers('env_a') }),
    ),
  )
  t.same(
    answers.map((answer) => answer.statusCode),
    Array(8).fill(200),
  )
  t.notOk(seen.includes('env_b'), 'B is never charged (nor marked at work) by a header no route checked')
})
