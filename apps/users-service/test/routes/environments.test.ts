import t from 'tap'
import { build, ENV_A, ENV_B, headers } from '../helper.js'

t.test('super-administrators create and list environments without an environment-id', async (t) => {
  const { call, token, adminId, user } = await build(t)
  const auth = headers(token(adminId))

  const created = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: auth,
    payload: { _id: 'acme_prod', name: 'Acme' },
  })
  t.equal(created.statusCode, 201)
  t.match(created.json(), { status: 'ok', data: { _id: 'acme_prod', name: 'Acme', _createdByUserId: adminId } })

  const listed = await call({ method: 'GET', url: '/api/v2/environments', headers: auth })
  t.equal(listed.statusCode, 200)
  t.same(
    listed.json().data.map((e: { _id: string }) => e._id),
    ['acme_prod', ENV_A, ENV_B],
  )

  const taken = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: auth,
    payload: { _id: 'acme_prod', name: 'Again' },
  })
  t.equal(taken.statusCode, 409)
  t.equal(taken.json().error, 'duplicate_name')

  const badId = await call({
    method: 'POST',
    url: '/api/v2/environments',
    headers: auth,
    payload: { _id: 'Not A Slug', name: 'x' },
  })
  t.equal(badId.statusCode, 400)
  t.equal(badId.json().error, 'validation_error')
  t.match(badId.json().description, /_id/)

  const { token: adminOfA } = await user({ environments: { [ENV_A]: { administrator: true } } })
  for (const request of [
    { method: 'GET' as const, url: '/api/v2/environments' },
    { method: 'POST' as const, url: '/api/v2/environments', payload: { _id: 'mine', name: 'Mine' } },
  ]) {
    const forbidden = await call({ ...request, headers: headers(adminOfA, ENV_A) })
    t.equal(forbidden.statusCode, 403, `${request.method}: an environment administrator is not a super-administrator`)
    t.equal(forbidden.json().error, 'forbidden')
  }
  const anonymous = await call({ method: 'GET', url: '/api/v2/environments' })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().error, 'unauthorized')
})
