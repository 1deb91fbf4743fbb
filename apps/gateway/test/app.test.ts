import t from 'tap'
import { build, ADMIN } from './helper.js'

t.test('all-in-one: health, login, and the envelope on every refusal', async (t) => {
  const { server } = await build(t)

  const health = await server.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 200)
  t.equal(health.json().status, 'ok')
  t.ok(health.headers['x-request-id'], 'every answer carries its request id')

  const login = await server.inject({ method: 'POST', url: '/auth/login', payload: ADMIN })
  t.equal(login.statusCode, 200)
  const { accessToken, tokenType, expiresIn, userId } = login.json().data
  t.equal(tokenType, 'Bearer')
  t.equal(expiresIn, 3600)
  t.match(userId, /^[0-9a-f]{24}$/)
  t.equal(accessToken.split('.').length, 3, 'a JWT')

  const viaV2 = await server.inject({ method: 'POST', url: '/api/v2/auth/login', payload: ADMIN })
  t.equal(viaV2.statusCode, 200, '/auth is reachable under /api/v2 too')

  const wrong = await server.inject({ method: 'POST', url: '/auth/login', payload: { ...ADMIN, password: 'nope' } })
  t.equal(wrong.statusCode, 401)
  t.same(wrong.json(), {
    status: 'error',
    error: 'unauthorized',
    description: 'Wrong username or password',
    userDescription: 'Wrong username or password',
    message: 'Wrong username or password',
  })
  const unknownUser = await server.inject({
    method: 'POST',
    url: '/auth/login',
    payload: { username: 'ghost', password: 'x' },
  })
  t.same(unknownUser.json(), wrong.json(), 'an unknown user is not told apart from a wrong password')

  const url = '/api/v2/usage-statistics/active-users'
  const authorization = `Bearer ${accessToken}`
  const noEnv = await server.inject({ method: 'GET', url, headers: { authorization } })
  t.equal(noEnv.statusCode, 400)
  t.equal(noEnv.json().error, 'environment_id_missing')

  const noToken = await server.inject({ method: 'GET', url, headers: { 'environment-id': 'default' } })
  t.equal(noToken.statusCode, 401)
  t.equal(noToken.json().error, 'unauthorized')

  const ok = await server.inject({ method: 'GET', url, headers: { authorization, 'environment-id': 'default' } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json(), { status: 'ok', data: { activeUsers: 1 } })

  const unknown = await server.inject({ method: 'GET', url: '/api/v2/nothing-here' })
  t.equal(unknown.statusCode, 404)
  t.same(Object.keys(unknown.json()).sort(), ['description', 'error', 'message', 'status', 'userDescription'])
  t.equal(unknown.json().error, 'not_found')

  const badBody = await server.inject({ method: 'POST', url: '/auth/login', payload: { username: 'admin' } })
  t.equal(badBody.statusCode, 400)
  t.equal(badBody.json().error, 'validation_error')
  t.match(badBody.json().description, /password/, 'the description names the field')

  const badJson = await server.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: '{"username":',
  })
  t.equal(badJson.statusCode, 400)
  t.equal(badJson.json().error, 'validation_error')
})

t.test('OpenAPI: /docs/json describes every public route of every local service, /docs serves the UI', async (t) => {
  const { server, routes } = await build(t)
  const res = await server.inject({ method: 'GET', url: '/docs/json' })
  t.equal(res.statusCode, 200)
  const document = res.json()
  t.match(document.openapi, /^3\./)
  const documented = new Set<string>()
  for (const [path, operations] of Object.entries(document.paths as Record<string, object>)) {
    for (const method of Object.keys(operations)) {
      documented.add(`${method.toUpperCase()} ${path.replace(/(.)\/$/, '$1')}`)
    }
  }
  const publicRoutes = routes.filter(
    ({ method, url }) => method !== 'HEAD' && (url.startsWith('/api/v2') || url.startsWith('/auth')),
  )
  t.ok(publicRoutes.length > 0)
  for (const { method, url } of publicRoutes) {
    const path = url.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1')
    t.ok(documented.has(`${method} ${path}`), `${method} ${path} is documented`)
  }
  const ui = await server.inject({ method: 'GET', url: '/docs/' })
  t.equal(ui.statusCode, 200)
  t.match(ui.headers['content-type'], /html/)
})
