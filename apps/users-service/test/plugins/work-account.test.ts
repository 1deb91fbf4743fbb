import t from 'tap'
import { notingWorkAccounts } from '@quire/testing'
import { build, ENV_A, ENV_B, headers } from '../helper.js'

// Alone, an environment runs without an account (nothing to share out): each test keeps two at work at once.

t.test("requests of two environments at once run on their own environment's account", async (t) => {
  const seen: Array<string | undefined> = []
  const { call, token, adminId } = await build(t, {}, { wrapStore: notingWorkAccounts(seen) })
  seen.length = 0
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      call({ method: 'GET', url: '/api/v2/users', headers: headers(token(adminId), i % 2 ? ENV_B : ENV_A) }),
    ),
  )
  t.same(
    answers.map((answer) => answer.statusCode),
    Array(8).fill(200),
  )
  t.ok(seen.includes(ENV_A) && seen.includes(ENV_B), 'both environments are charged for their store work')
  t.same(
    seen.filter((id) => id !== undefined && id !== ENV_A && id !== ENV_B),
    [],
    'no other account',
  )
})

t.test('an environment-id on a route that does not check it charges no environment', async (t) => {
  const seen: Array<string | undefined> = []
  const { call, token, adminId } = await build(t, {}, { wrapStore: notingWorkAccounts(seen) })
  seen.length = 0
  // The environments list takes no environment-id: B's header there is unchecked, while A reads its users.
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      i % 2
        ? call({ method: 'GET', url: '/api/v2/environments', headers: headers(token(adminId), ENV_B) })
        : call({ method: 'GET', url: '/api/v2/users', headers: headers(token(adminId), ENV_A) }),
    ),
  )
  t.same(
    answers.map((answer) => answer.statusCode),
    Array(8).fill(200),
  )
  t.notOk(seen.includes(ENV_B), 'B is never charged (nor marked at work) by a header no route checked')
})
