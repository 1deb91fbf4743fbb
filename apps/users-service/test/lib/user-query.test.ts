import t from 'tap'
import { nextPage, parseExclude, parseUserQuery } from '../../src/lib/user-query.js'

t.test('parseUserQuery: checked operators, readable fields of the own environment only', async (t) => {
  t.same(parseUserQuery(undefined, 'a'), {})
  t.same(parseUserQuery('{"profile.environments.a.groups":"ops"}', 'a'), { 'profile.environments.a.groups': 'ops' })
  t.same(parseUserQuery('{"$or":[{"username":{"$regex":"^b"}},{"lastLogin":{"$exists":true}}]}', 'a'), {
    $or: [{ username: { $regex: '^b' } }, { lastLogin: { $exists: true } }],
  })
  for (const query of [
    '{"profile.environments.b.groups":"ops"}',
    '{"profile":{"$exists":true}}',
    '{"authentication.passwordHash":"x"}',
    '{"$nor":[{"activeEnvironmentIds":"b"}]}',
    '{"$where":"1"}',
    '[1]',
    'not json',
  ]) {
    t.throws(() => parseUserQuery(query, 'a'), { code: 'invalid_query' }, query)
  }
})

t.test('parseExclude: top-level field names, authentication always among them, never _id', async (t) => {
  t.same(parseExclude(undefined), ['authentication'])
  t.same(parseExclude('["profile","authentication","profile"]'), ['authentication', 'profile'])
  for (const exclude of ['{}', '["_id"]', '["a.b"]', '[1]', 'nope']) {
    t.throws(() => parseExclude(exclude), { code: 'invalid_query' }, exclude)
  }
})

t.test('nextPage: the spec encoding, with the query kept when there is one', async (t) => {
  t.equal(nextPage({ limit: 2 }, ['authentication'], 'abc'), 'limit=2&exclude=%5B%22authentication%22%5D&after=abc')
  t.equal(
    nextPage({ limit: 1, query: '{"name": "a b"}' }, ['authentication'], 'abc'),
    'limit=1&exclude=%5B%22authentication%22%5D&after=abc&query=%7B%22name%22%3A%20%22a%20b%22%7D',
    'spaces as %20, not +',
  )
})
