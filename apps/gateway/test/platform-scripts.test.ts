/* eslint-disable no-template-curly-in-string -- the scripts under test are JavaScript text with template literals */
import t from 'tap'
import { ENV, OTHER_ENV, world } from './hardening/world.js'

/** The platform's own example, exactly as its documentation writes it. */
const PLATFORM_EXAMPLE =
  "const result = REST.call('api/v2/packages/installations','GET',{Accept:'application/json',Authorization:`Bearer ${authToken.accessToken}`,'environment-id':serverDocument._environmentId},null)"

const DEFINITIONS = '/api/v2/document-definitions'

t.test('a script written for the platform runs unchanged in the all-in-one server', async (t) => {
  const w = await world(t)
  const source = [
    PLATFORM_EXAMPLE,
    'return { result, status: REST.lastStatus, definition: serverDocument._documentDefinitionName, token: authToken.accessToken }',
  ].join('\n')
  const definition = await w.setup(
    {
      method: 'POST',
      url: DEFINITIONS,
      payload: { name: 'platform-orders', actions: [{ name: 'installed', triggers: ['manual'], source }] },
    },
    201,
  )
  const documents = `${DEFINITIONS}/${(definition.data as { _id: string })._id}/documents`
  const created = await w.setup({ method: 'POST', url: `${documents}/new`, payload: { title: 'one' } }, 201)
  const documentId = (created.data as { _id: string })._id

  const res = await w.call('administrator', { method: 'POST', url: `${documents}/${documentId}/actions/installed` })
  t.equal(res.statusCode, 200, res.body)
  const {
    result,
    status,
    definition: name,
    token,
  } = res.json().data.result as {
    result: { status: string; data: unknown[] }
    status: number
    definition: string
    token: string
  }
  t.equal(status, 200)
  t.match(result, { status: 'ok', data: Array }, "the packages service's answer, returned synchronously")
  t.equal(name, 'platform-orders', 'serverDocument carries _documentDefinitionName')

  // The token the script saw: not a credential once its run has ended.
  const after = await w.server.inject({
    method: 'GET',
    url: '/api/v2/packages/installations',
    headers: { authorization: `Bearer ${token}`, 'environment-id': ENV },
  })
  t.equal(after.statusCode, 401, 'the run token stops working when the run ends')
})

t.test('a script cannot use its token to exceed its delegation', async (t) => {
  const w = await world(t)
  // The token sent where the delegation does not reach: another environment, a super-administrator's route.
  const source = [
    'const auth = { Authorization: `Bearer ${authToken.accessToken}` }',
    "REST.call('api/v2/packages/installations', 'GET', { ...auth, 'environment-id': '" + OTHER_ENV + "' }, null)",
    'const otherEnvironment = REST.lastStatus',
    "REST.call('api/v2/packages', 'POST', auth, { name: 'stolen' })",
    'const superAdministratorRoute = REST.lastStatus',
    'return { otherEnvironment, superAdministratorRoute }',
  ].join('\n')
  const definition = await w.setup(
    {
      method: 'POST',
      url: DEFINITIONS,
      payload: { name: 'platform-escape', actions: [{ name: 'escape', triggers: ['manual'], source }] },
    },
    201,
  )
  const documents = `${DEFINITIONS}/${(definition.data as { _id: string })._id}/documents`
  const created = await w.setup({ method: 'POST', url: `${documents}/new`, payload: { title: 'one' } }, 201)
  const url = `${documents}/${(created.data as { _id: string })._id}/actions/escape`
  const res = await w.call('superAdministrator', { method: 'POST', url })
  t.equal(res.statusCode, 200, res.body)
  const { otherEnvironment, superAdministratorRoute } = res.json().data.result as {
    otherEnvironment: number
    superAdministratorRoute: number
  }
  // The auth plugin's refusal of a delegation's other environment (401 through the gateway's edge today).
  t.ok([401, 403].includes(otherEnvironment), `another environment: ${otherEnvironment}`)
  t.equal(superAdministratorRoute, 403, "a super-administrator's route, though a super-administrator clicked")
})
