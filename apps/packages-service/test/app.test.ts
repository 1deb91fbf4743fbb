import t from 'tap'
import { build } from './helper.js'

t.test(
  'QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: signed-in callers get 429 rate_limited past it, each user alone',
  async (t) => {
    const h = await build(t, { QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: '2' })
    const one = await h.signIn({ superAdministrator: true })
    const list = (headers: Record<string, string>) =>
      h.server.inject({ method: 'GET', url: '/api/v2/packages', headers })
    for (let i = 0; i < 2; i++) t.equal((await list(one.headers())).statusCode, 200)
    const limited = await list(one.headers())
    t.equal(limited.statusCode, 429)
    t.equal(limited.json().error, 'rate_limited')
    t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After')
    const other = await h.signIn({ superAdministrator: true })
    t.equal((await list(other.headers())).statusCode, 200, 'another user has its own budget')
  },
)

t.test('QUIRE_CALLER_RATE_LIMIT_PER_MINUTE unset: no limit', async (t) => {
  const h = await build(t)
  const one = await h.signIn({ superAdministrator: true })
  for (let i = 0; i < 20; i++) {
    t.equal((await h.server.inject({ method: 'GET', url: '/api/v2/packages', headers: one.headers() })).statusCode, 200)
  }
})
