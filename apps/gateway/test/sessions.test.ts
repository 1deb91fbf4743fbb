import t from 'tap'
import { ADMIN, build } from './helper.js'

/** A sign-out through the users service holds in every service of the deployment at once (issue 37 item 5). */

t.test("signing out refuses the session's access token in every service, at once", async (t) => {
  const { server } = await build(t)
  const opened = await server.inject({ method: 'POST', url: '/api/v2/auth/sessions', payload: ADMIN })
  t.equal(opened.statusCode, 200)
  const { accessToken, refreshToken } = opened.json().data
  const calls = {
    documents: { method: 'GET', url: '/api/v2/document-definitions' },
    packages: { method: 'GET', url: '/api/v2/packages' },
    users: { method: 'GET', url: '/api/v2/users' },
  } as const
  const call = (request: (typeof calls)[keyof typeof calls]) =>
    server.inject({ ...request, headers: { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' } })

  for (const [service, request] of Object.entries(calls)) {
    t.equal((await call(request)).statusCode, 200, `${service}: signed in`)
  }
  const out = await server.inject({ method: 'POST', url: '/api/v2/auth/sessions/logout', payload: { refreshToken } })
  t.same(out.json(), { status: 'ok', data: { signedOut: true } })
  for (const [service, request] of Object.entries(calls)) {
    const refused = await call(request)
    t.equal(refused.statusCode, 401, `${service}: signed out`)
    t.match(refused.json(), {
      status: 'error',
      error: 'unauthorized',
      description: 'The session of this access token was signed out, ended or expired',
    })
  }
})
