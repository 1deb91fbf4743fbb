import t from 'tap'
import { build, ENV_A, headers } from '../helper.js'

// Clients generated from the spec send `Content-Type: application/json` on every call, with or without a body.
t.test('an empty body sent as application/json is no body where the body is optional', async (t) => {
  const { call, user } = await build(t)
  const { record: alice, token } = await user({ environments: { [ENV_A]: {} } })
  const url = `/api/v2/users/${alice._id}/long-lived-tokens`
  const json = { ...headers(token, ENV_A), 'content-type': 'application/json' }

  const minted = await call({ method: 'POST', url, headers: json, payload: '' })
  t.equal(minted.statusCode, 201, 'a long-lived token with the defaults, as without any body')
  t.match(minted.json().data, [{ token: /^qlt_/, name: '' }])

  const revoked = await call({ method: 'DELETE', url: `${url}/${minted.json().data[0]._id}`, headers: json })
  t.equal(revoked.statusCode, 200, 'a DELETE with the header and no body')

  const malformed = await call({ method: 'POST', url, headers: json, payload: '{' })
  t.equal(malformed.statusCode, 400, 'a body that is not JSON is still refused')
})
