import t from 'tap'
import { COLLECTIONS, ensureUsersIndexes } from '../../src/collections.js'
import { hashPassword } from '../../src/lib/passwords.js'
import { ADMIN, build, ENV_A, ENV_B, headers, type Built } from '../helper.js'

/**
 * Issue 30, item 7: the administrator of another environment (B) makes decoy accounts that look like, or sign in
 * as, accounts of environment A.
 */

const PASSWORD = 'a long password'

async function hostileAdmin(built: Built) {
  const { token } = await built.user({ environments: { [ENV_B]: { administrator: true } } })
  return (payload: Record<string, string>) =>
    built.call({ method: 'POST', url: '/api/v2/users', headers: headers(token, ENV_B), payload })
}

/** The victim, created in A by the super-administrator. */
async function victim(built: Built, payload: Record<string, string>): Promise<string> {
  const created = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { password: PASSWORD, ...payload },
  })
  if (created.statusCode !== 201) throw new Error(created.body)
  return created.json().data[0]._id
}

const login = (built: Built, username: string, password = PASSWORD) =>
  built.call({ method: 'POST', url: '/auth/login', payload: { username, password } })

t.test('one name typed two ways: NFC and NFD "zoë" are one account', async (t) => {
  const built = await build(t)
  const decoy = await hostileAdmin(built)
  const zoe = await victim(built, { username: 'zo\u00eb' })

  const nfd = await decoy({ username: 'zoe\u0308', password: PASSWORD })
  t.equal(nfd.statusCode, 409, 'the decomposed spelling is the same name')
  t.equal(nfd.json().error, 'duplicate_username')

  const created = await decoy({ username: 'chlo\u0065\u0301', password: PASSWORD })
  t.equal(created.statusCode, 201)
  t.equal(created.json().data[0].username, 'chlo\u00e9', 'stored composed (NFC)')
  t.equal((await login(built, 'chlo\u00e9')).json().data.userId, created.json().data[0]._id)
  t.equal((await login(built, 'zoe\u0308')).json().data.userId, zoe, 'signs in typed either way')
  t.equal(await COLLECTIONS.users.in(built.resources.store).count({ username: { $in: ['zoe\u0308', 'zo\u00eb'] } }), 1)
})

t.test('invisible, bidirectional and mixed-script look-alikes of "admin" are refused', async (t) => {
  const built = await build(t)
  const decoy = await hostileAdmin(built)
  for (const [username, why] of [
    ['adm\u200bin', 'zero-width space (Cf)'],
    ['admin\u202e', 'right-to-left override (Cf)'],
    ['\u2066admin\u2069', 'isolates (Cf)'],
    ['admin\u00ad', 'soft hyphen (Cf)'],
    ['admin\ufe0f', 'variation selector (default ignorable)'],
    ['admin\u3164', 'Hangul filler (default ignorable)'],
    ['admin\u0085', 'next line (Cc)'],
    ['admin\u2028', 'line separator'],
    ['admin\u00a0', 'no-break space at the end'],
    ['\u3000admin', 'ideographic space at the start'],
    ['admin\ue000', 'private use'],
    ['admin\u0378', 'unassigned'],
    ['admin\ud800', 'a lone surrogate'],
    ['\u0430dmin', 'Cyrillic а in Latin'],
    ['\u0430\u0434min', 'Cyrillic ад in Latin'],
    ['r\u03bfot', 'Greek ο in Latin'],
    ['payp\u0430l@example.com', 'Cyrillic а in an address-like username'],
  ] as const) {
    const refused = await decoy({ username, password: PASSWORD })
    t.equal(refused.statusCode, 400, why)
    t.equal(refused.json().error, 'validation_error', why)
  }
  const invisible = await decoy({ username: 'adm\u200bin' })
  t.equal(invisible.json().description, 'body/username must not contain U+200B')
  t.equal(
    (await decoy({ username: '\u0430dmin' })).json().description,
    'body/username must not mix letters of different scripts',
  )
  t.equal(
    await COLLECTIONS.users.in(built.resources.store).count({ environmentIds: ENV_B }),
    1,
    'B holds its administrator only',
  )

  for (const username of [
    '\u0438\u0432\u0430\u043d',
    '\u03b6\u03c9\u03ae',
    '\u7530\u4e2d\u3072\u308d\u3057',
    'kim\ud55c\uad6d',
    'o\u2019brien-2',
  ]) {
    t.equal((await decoy({ username })).statusCode, 201, `one script is fine: ${username}`)
  }
})

t.test('case and compatibility variants of a taken name are 409, and sign in to the one account', async (t) => {
  const built = await build(t)
  const decoy = await hostileAdmin(built)
  for (const username of ['Admin', 'ADMIN', '\uff41\uff44\uff4d\uff49\uff4e', 'admin']) {
    const taken = await decoy({ username, password: PASSWORD })
    t.equal(taken.statusCode, 409, username)
    t.equal(taken.json().error, 'duplicate_username', username)
  }
  const signedIn = await login(built, 'ADMIN', ADMIN.password)
  t.equal(signedIn.json().data.userId, built.adminId, 'the folded name signs in to the super-administrator')

  const strasse = await victim(built, { username: 'stra\u00dfe' })
  t.equal((await decoy({ username: 'STRASSE' })).statusCode, 409, 'ß folds to ss')
  t.equal((await login(built, 'Strasse')).json().data.userId, strasse)

  // Two administrators racing for case variants of one new name: one account.
  const raced = await Promise.all([decoy({ username: 'Carol' }), decoy({ username: 'cAROL' })])
  t.same(raced.map((response) => response.statusCode).sort(), [201, 409])
})

t.test('a global address belongs to one account: the decoy gets 409, login and reset find the owner', async (t) => {
  const built = await build(t)
  const decoy = await hostileAdmin(built)
  const alice = await victim(built, { username: 'alice', email: 'alice@example.com' })

  for (const payload of [
    { username: 'alice-decoy', email: 'ALICE@Example.com' },
    { username: 'alice2', email: 'alice@example.com' },
  ]) {
    const taken = await decoy({ ...payload, password: 'decoy password' })
    t.equal(taken.statusCode, 409, payload.email)
    t.equal(taken.json().error, 'duplicate_email')
  }
  const asName = await decoy({ username: 'Alice@example.com', password: 'decoy password' })
  t.equal(asName.statusCode, 409, "another account's address as a username")
  t.equal(asName.json().error, 'duplicate_username')
  const users = COLLECTIONS.users.in(built.resources.store)
  t.equal(await users.count({ 'globalEmails.address': 'alice@example.com' }), 1)

  t.equal((await login(built, 'Alice@Example.com')).json().data.userId, alice)
  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { email: 'ALICE@example.com' } })
  const resets = await COLLECTIONS.passwordResets.in(built.resources.store).find({})
  t.same(
    resets.map((reset) => reset.userId),
    [alice],
  )

  const raced = await Promise.all([
    decoy({ username: 'first', email: 'shared@example.com' }),
    decoy({ username: 'second', email: 'Shared@example.com' }),
  ])
  t.same(raced.map((response) => response.statusCode).sort(), [201, 409], 'racing for an address: one owner')
})

t.test('older data: an address two accounts share signs in and mails neither; no one new takes it', async (t) => {
  const built = await build(t)
  const users = COLLECTIONS.users.in(built.resources.store)
  const passwordHash = await hashPassword(PASSWORD)
  // Written as the service did before addresses were unique: the decoy first.
  const older = async (username: string) => {
    const { record } = await built.user({ username, environments: { [ENV_A]: {} } })
    await users.updateOne(
      { _id: record._id },
      { $set: { globalEmails: [{ address: 'owner@example.com', verified: false }], authentication: { passwordHash } } },
    )
    return record._id
  }
  await older('decoy')
  const owner = await older('owner')

  t.equal((await login(built, 'owner@example.com')).statusCode, 401, 'never the first of two')
  t.equal((await login(built, 'owner')).json().data.userId, owner, 'the username still works')
  await built.call({ method: 'POST', url: '/auth/reset-password', payload: { email: 'owner@example.com' } })
  t.same(
    (await COLLECTIONS.passwordResets.in(built.resources.store).find({})).map((reset) => reset.userId),
    [null],
    'no reset mailed to either',
  )
  const third = await built.call({
    method: 'POST',
    url: '/api/v2/users',
    headers: headers(built.token(built.adminId), ENV_A),
    payload: { username: 'third', email: 'OWNER@example.com' },
  })
  t.equal(third.statusCode, 409)
  t.equal(third.json().error, 'duplicate_email')
})

t.test(
  'older data: names that differ only in case are keyed at start, the older one keeps the folded name',
  async (t) => {
    const built = await build(t)
    const users = COLLECTIONS.users.in(built.resources.store)
    const passwordHash = await hashPassword(PASSWORD)
    const older = async (username: string) => {
      const { record } = await built.user({ username, environments: { [ENV_A]: {} } })
      await users.updateOne({ _id: record._id }, { $set: { authentication: { passwordHash } } })
      return record._id
    }
    const bob = await older('bob')
    const upperBob = await older('Bob')
    t.same(await ensureUsersIndexes(built.resources.store), [upperBob], 'the clash is reported (and logged at start)')
    t.same((await users.findOne({ _id: bob }))?.loginKeys, ['bob'])

    t.equal((await login(built, 'Bob')).json().data.userId, upperBob, 'the exact name first')
    t.equal((await login(built, 'bob')).json().data.userId, bob)
    t.equal((await login(built, 'BOB')).json().data.userId, bob, 'a variant: the older account')
    const again = await built.call({
      method: 'POST',
      url: '/api/v2/users',
      headers: headers(built.token(built.adminId), ENV_A),
      payload: { username: 'BoB' },
    })
    t.equal(again.json().error, 'duplicate_username')
  },
)
