import t, { type Test } from 'tap'
import { authPlugin } from '@quire/auth'
import { hashToken, recordsIdentity } from '@quire/identity'
import { createServer } from '@quire/service-kit'
import { COLLECTIONS } from '../../src/collections.js'
import { build, ENV_A, ENV_B, headers, type Built } from '../helper.js'

/** Another service as every service is built: the auth plugin over the shared store, public key only. */
async function otherService(t: Test, built: Built) {
  const server = createServer({ logLevel: 'silent' })
  await server.register(authPlugin, {
    keys: { publicKey: built.resources.keys.publicKey },
    identity: recordsIdentity(built.resources.store),
  })
  server.register(async (scoped) => {
    scoped.addHook('onRequest', scoped.auth.requireEnvironment)
    scoped.get('/api/v2/whoami', async (request) => ({ userId: request.caller.userId, via: request.caller.via }))
  })
  t.teardown(() => server.close())
  return server
}

t.test(
  'a user mints, lists and revokes its own long-lived tokens; a revoked one stops working everywhere',
  async (t) => {
    const built = await build(t)
    const { call, user, resources } = built
    const { record: alice, token: aliceToken } = await user({ environments: { [ENV_A]: {} } })
    const url = `/api/v2/users/${alice._id}/long-lived-tokens`
    const auth = headers(aliceToken, ENV_A)

    const bare = await call({ method: 'POST', url, headers: auth })
    t.equal(bare.statusCode, 201, 'no body, as in the spec example')
    const inAMonth = new Date(Date.now() + 30 * 86_400_000).toISOString()
    const created = await call({ method: 'POST', url, headers: auth, payload: { name: 'ci', expiresOn: inAMonth } })
    t.equal(created.statusCode, 201)
    const [minted] = created.json().data
    t.match(minted, {
      _id: /^[0-9a-f]{24}$/,
      token: /^qlt_[\w-]{43}$/,
      name: 'ci',
      expiresOn: inAMonth,
      _createdOn: String,
      lastUsedOn: null,
    })
    const stored = await COLLECTIONS.longLivedTokens.in(resources.store).findOne({ _id: minted._id })
    t.equal(stored?.tokenHash, hashToken(minted.token), 'stored as its hash')
    t.notOk(JSON.stringify(stored).includes(minted.token), 'the secret itself is stored nowhere')

    const listed = await call({ method: 'GET', url, headers: auth })
    t.equal(listed.statusCode, 200)
    t.same(
      listed.json().data.map((token: { name: string }) => token.name),
      ['', 'ci'],
    )
    t.notOk(JSON.stringify(listed.json()).includes(minted.token), 'listing never shows the secret')
    t.notOk('token' in listed.json().data[1])

    const other = await otherService(t, built)
    const before = await other.inject({ method: 'GET', url: '/api/v2/whoami', headers: headers(minted.token, ENV_A) })
    t.equal(before.statusCode, 200, 'usable as Bearer on another service')
    t.same(before.json(), { userId: alice._id, via: 'long-lived-token' })

    const revoked = await call({ method: 'DELETE', url: `${url}/${minted._id}`, headers: auth })
    t.equal(revoked.statusCode, 200)
    t.same(revoked.json(), { status: 'ok', data: { _id: minted._id, revoked: true } })
    const after = await other.inject({ method: 'GET', url: '/api/v2/whoami', headers: headers(minted.token, ENV_A) })
    t.equal(after.statusCode, 401, 'refused at once by the other service')
    t.equal(after.json().error, 'unauthorized')
    const here = await call({ method: 'GET', url: '/api/v2/users', headers: headers(minted.token, ENV_A) })
    t.equal(here.statusCode, 401, 'and by this one')

    const again = await call({ method: 'DELETE', url: `${url}/${minted._id}`, headers: auth })
    t.equal(again.statusCode, 404)
    t.equal(again.json().error, 'token_not_found')

    const past = await call({ method: 'POST', url, headers: auth, payload: { expiresOn: '2000-01-01T00:00:00.000Z' } })
    t.equal(past.statusCode, 400)
    t.equal(past.json().error, 'validation_error')
    const badBody = await call({ method: 'POST', url, headers: auth, payload: { token: 'chosen-by-me' } })
    t.equal(badBody.statusCode, 400)
    t.equal(badBody.json().error, 'validation_error')
  },
)

t.test('an expired long-lived token is refused', async (t) => {
  const built = await build(t)
  const { record: alice } = await built.user({ environments: { [ENV_A]: {} } })
  const secret = 'qlt_expired-token-for-the-test-0000000000'
  await COLLECTIONS.longLivedTokens.in(built.resources.store).insertOne({
    _id: 'expired',
    userId: alice._id,
    tokenHash: hashToken(secret),
    name: 'old',
    _createdOn: '2020-01-01T00:00:00.000Z',
    _createdByUserId: alice._id,
    expiresOn: '2020-02-01T00:00:00.000Z',
  })
  const refused = await built.call({ method: 'GET', url: '/api/v2/users', headers: headers(secret, ENV_A) })
  t.equal(refused.statusCode, 401)
  t.equal(refused.json().error, 'unauthorized')
})

t.test('administrators act for members they fully administer; never across environments', async (t) => {
  const { call, user, adminId, token } = await build(t)
  const { record: adminA, token: adminAToken } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const { record: member } = await user({ environments: { [ENV_A]: {} } })
  const { record: shared } = await user({ environments: { [ENV_A]: {}, [ENV_B]: {} } })
  const { record: onlyB, token: onlyBToken } = await user({ environments: { [ENV_B]: {} } })
  const { token: memberToken } = { token: token(member._id) }
  const tokensOf = (userId: string) => `/api/v2/users/${userId}/long-lived-tokens`
  const asAdminA = headers(adminAToken, ENV_A)

  const forMember = await call({
    method: 'POST',
    url: tokensOf(member._id),
    headers: asAdminA,
    payload: { name: 'for member' },
  })
  t.equal(forMember.statusCode, 201, 'an administrator mints for a member of its environment')
  t.equal(forMember.json().data[0]._createdByUserId, adminA._id)
  const listed = await call({ method: 'GET', url: tokensOf(member._id), headers: asAdminA })
  t.equal(listed.json().data.length, 1)

  for (const method of ['POST', 'GET'] as const) {
    const hidden = await call({ method, url: tokensOf(onlyB._id), headers: asAdminA })
    t.equal(hidden.statusCode, 404, `${method}: a user seen only in B does not exist for A's administrator`)
    t.equal(hidden.json().error, 'user_not_found')
  }
  const onlyBTokens = await call({ method: 'POST', url: tokensOf(onlyB._id), headers: headers(onlyBToken, ENV_B) })
  const revokeAcross = await call({
    method: 'DELETE',
    url: `${tokensOf(onlyB._id)}/${onlyBTokens.json().data[0]._id}`,
    headers: asAdminA,
  })
  t.equal(revokeAcross.statusCode, 404)
  t.equal(revokeAcross.json().error, 'user_not_found')

  const sharedRefused = await call({ method: 'POST', url: tokensOf(shared._id), headers: asAdminA })
  t.equal(sharedRefused.statusCode, 403, 'a token would work in B too, which A does not administer')
  t.equal(sharedRefused.json().error, 'forbidden')
  const superRefused = await call({ method: 'POST', url: tokensOf(adminId), headers: asAdminA })
  t.equal(superRefused.statusCode, 403, 'never for a super-administrator')

  const bySuper = await call({ method: 'POST', url: tokensOf(shared._id), headers: headers(token(adminId), ENV_A) })
  t.equal(bySuper.statusCode, 201, 'a super-administrator may')

  const byMember = await call({ method: 'GET', url: tokensOf(adminA._id), headers: headers(memberToken, ENV_A) })
  t.equal(byMember.statusCode, 403, 'a member acts only for itself')
  t.equal(byMember.json().error, 'forbidden')

  const wrongToken = await call({
    method: 'DELETE',
    url: `${tokensOf(member._id)}/${onlyBTokens.json().data[0]._id}`,
    headers: asAdminA,
  })
  t.equal(wrongToken.statusCode, 404, "another user's token id is not found under this user")
  t.equal(wrongToken.json().error, 'token_not_found')
})

t.test(
  'long-lived tokens: minted only from a sign-in, expire by default within the operator maximum, show last use',
  async (t) => {
    const built = await build(t, { QUIRE_LONG_LIVED_TOKEN_DAYS: '30', QUIRE_LONG_LIVED_TOKEN_MAX_DAYS: '60' })
    const { call, user } = built
    const { record: alice, token: aliceToken } = await user({ environments: { [ENV_A]: {} } })
    const url = `/api/v2/users/${alice._id}/long-lived-tokens`
    const auth = headers(aliceToken, ENV_A)

    const before = Date.now()
    const created = await call({ method: 'POST', url, headers: auth, payload: { name: 'default' } })
    t.equal(created.statusCode, 201)
    const [minted] = created.json().data
    const expires = Date.parse(minted.expiresOn)
    t.ok(
      expires >= before + 30 * 86_400_000 && expires <= Date.now() + 30 * 86_400_000,
      'expires in the default 30 days',
    )

    const tooLong = await call({
      method: 'POST',
      url,
      headers: auth,
      payload: { expiresOn: new Date(Date.now() + 61 * 86_400_000).toISOString() },
    })
    t.equal(tooLong.statusCode, 400, 'beyond the operator maximum')
    t.equal(tooLong.json().error, 'validation_error')
    t.equal(tooLong.json().userDescription, 'A token may live at most 60 days')
    t.match(tooLong.json().description, /QUIRE_LONG_LIVED_TOKEN_MAX_DAYS/)

    const byToken = await call({
      method: 'POST',
      url,
      headers: headers(minted.token, ENV_A),
      payload: { name: 'next' },
    })
    t.equal(byToken.statusCode, 403, 'a long-lived token cannot mint another')
    t.equal(byToken.json().error, 'forbidden')
    t.equal(byToken.json().userDescription, 'Sign in with your password to create a token')

    const listed = await call({ method: 'GET', url, headers: auth })
    const [shown] = listed.json().data
    t.match(shown.lastUsedOn, /^\d{4}-\d\d-\d\dT/, 'the list shows when it was last used')
    t.ok(Date.parse(shown.lastUsedOn) >= before)
    t.equal(
      await COLLECTIONS.longLivedTokens.in(built.resources.store).count({ userId: alice._id }),
      1,
      'nothing minted',
    )
  },
)

t.test('a token minted by an administrator opens only the environments of its user at minting', async (t) => {
  const built = await build(t)
  const { call, user, adminId, token, resources } = built
  const { token: adminAToken } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const { record: member, token: memberToken } = await user({ environments: { [ENV_A]: {} } })
  const tokensOf = `/api/v2/users/${member._id}/long-lived-tokens`
  const mint = async (accessToken: string, name: string) => {
    const res = await call({ method: 'POST', url: tokensOf, headers: headers(accessToken, ENV_A), payload: { name } })
    t.equal(res.statusCode, 201, name)
    return res.json().data[0] as { _id: string; token: string }
  }
  const byAdministrator = await mint(adminAToken, 'by the administrator of A')
  const byItself = await mint(memberToken, 'by the member itself')
  const bySuper = await mint(token(adminId), 'by a super-administrator')
  const stored = COLLECTIONS.longLivedTokens.in(resources.store)
  t.same((await stored.findOne({ _id: byAdministrator._id }))?.environmentIds, [ENV_A], 'bound, and stored so')
  t.equal((await stored.findOne({ _id: byItself._id }))?.environmentIds, undefined, 'its own: unbound')
  t.equal((await stored.findOne({ _id: bySuper._id }))?.environmentIds, undefined, "a super-administrator's: unbound")
  const listed = await call({ method: 'GET', url: tokensOf, headers: headers(memberToken, ENV_A) })
  t.equal(listed.statusCode, 200, 'the list shows no binding (it tells of other environments)')

  // Later, the member becomes an administrator of B.
  const joined = await call({
    method: 'PATCH',
    url: `/api/v2/users/${member._id}`,
    headers: headers(token(adminId), ENV_B),
    payload: { administrator: true },
  })
  t.equal(joined.statusCode, 200)

  const other = await otherService(t, built)
  const inB = (secret: string) =>
    call({
      method: 'POST',
      url: '/api/v2/users',
      headers: headers(secret, ENV_B),
      payload: { username: `planted-${secret.slice(-6)}`, password: 'a long enough password' },
    })
  const planted = await inB(byAdministrator.token)
  t.equal(planted.statusCode, 403, "the administrator of A's token creates nobody in B")
  t.equal(planted.json().error, 'forbidden')
  t.equal(
    (await other.inject({ method: 'GET', url: '/api/v2/whoami', headers: headers(byAdministrator.token, ENV_B) }))
      .statusCode,
    403,
    'nor reaches B in another service',
  )
  t.equal(
    (await other.inject({ method: 'GET', url: '/api/v2/whoami', headers: headers(byAdministrator.token, ENV_A) }))
      .statusCode,
    200,
    'A, as before',
  )
  t.equal((await inB(byItself.token)).statusCode, 201, 'its own token follows the member to B')
  t.equal((await inB(bySuper.token)).statusCode, 201, "and so does a super-administrator's")
})

t.test('a bound token acts for other users within its environments alone, whatever its user administers', async (t) => {
  const { call, user, adminId, token } = await build(t)
  const { token: minterToken } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const { record: deputy, token: deputyToken } = await user({ environments: { [ENV_A]: { administrator: true } } })
  const minted = await call({
    method: 'POST',
    url: `/api/v2/users/${deputy._id}/long-lived-tokens`,
    headers: headers(minterToken, ENV_A),
    payload: { name: 'for the deputy' },
  })
  t.equal(minted.statusCode, 201)
  const bound: string = minted.json().data[0].token
  // Later the deputy administers B too, and a user of both environments is there.
  const promoted = await call({
    method: 'PATCH',
    url: `/api/v2/users/${deputy._id}`,
    headers: headers(token(adminId), ENV_B),
    payload: { administrator: true },
  })
  t.equal(promoted.statusCode, 200)
  const { record: shared } = await user({ environments: { [ENV_A]: {}, [ENV_B]: {} } })

  const attempts = (credential: string) =>
    Promise.all([
      call({
        method: 'GET',
        url: `/api/v2/users/${shared._id}/long-lived-tokens`,
        headers: headers(credential, ENV_A),
      }),
      call({
        method: 'POST',
        url: '/auth/reset-2FA',
        headers: headers(credential, ENV_A),
        payload: { userId: shared._id },
      }),
    ])
  const [list, reset] = await attempts(bound)
  t.equal(list.statusCode, 403, "the bound token lists no tokens of a user of B, the deputy's own session does")
  t.equal(reset.statusCode, 403, 'nor resets its 2FA')
  const environments = await call({ method: 'GET', url: '/api/v2/environments', headers: headers(bound) })
  t.same(
    environments.json().data.map(({ _id }: { _id: string }) => _id),
    [ENV_A],
    'its environments: those it opens',
  )
  const [ownList, ownReset] = await attempts(deputyToken)
  t.equal(ownList.statusCode, 200, 'with its own session, the deputy may (it administers A and B)')
  t.equal(ownReset.statusCode, 200)
})

t.test('the token list is paged: `next` continues it, and nobody pages into another user', async (t) => {
  const { call, user } = await build(t)
  const { record: alice, token: aliceToken } = await user({ environments: { [ENV_A]: {} } })
  const { record: bob, token: bobToken } = await user({ environments: { [ENV_A]: {} } })
  const url = `/api/v2/users/${alice._id}/long-lived-tokens`
  const auth = headers(aliceToken, ENV_A)
  for (const name of ['one', 'two', 'three']) {
    t.equal((await call({ method: 'POST', url, headers: auth, payload: { name } })).statusCode, 201)
  }
  await call({ method: 'POST', url: `/api/v2/users/${bob._id}/long-lived-tokens`, headers: headers(bobToken, ENV_A) })

  const first = (await call({ method: 'GET', url: `${url}?limit=2`, headers: auth })).json()
  t.same(
    first.data.map((token: { name: string }) => token.name),
    ['one', 'two'],
  )
  t.match(first.pagination, { hasPrevious: false, hasNext: true, type: 'cursor', next: /^limit=2&after=[0-9a-f]{24}$/ })
  const second = (await call({ method: 'GET', url: `${url}?${first.pagination.next}`, headers: auth })).json()
  t.same(
    second.data.map((token: { name: string }) => token.name),
    ['three'],
    "the rest of alice's, none of bob's",
  )
  t.match(second.pagination, { hasPrevious: true, hasNext: false })
  t.notOk('next' in second.pagination)

  const whole = (await call({ method: 'GET', url, headers: auth })).json()
  t.equal(whole.data.length, 3, 'a page of up to 100 by default')
  t.equal((await call({ method: 'GET', url: `${url}?limit=0`, headers: auth })).statusCode, 400)
  t.equal((await call({ method: 'GET', url: `${url}?limit=801`, headers: auth })).statusCode, 400)
})
