import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import { build, createDefinition, DEFINITIONS, type TestContext } from '../helper.js'
import { receiver, verifies, WEBHOOKS } from '../webhooks-helper.js'

const config = { QUIRE_WEBHOOKS_ALLOW_PRIVATE: true }

type Verify = (rawBody: string, header: string, secret: string) => boolean

/** docs/API.md's verification snippet, as a receiver would paste it. */
async function docsVerifier(t: TestContext): Promise<Verify> {
  const docs = await readFile(new URL('../../../../docs/API.md', import.meta.url), 'utf8')
  const section = docs.slice(docs.indexOf('### Verifying a delivery'))
  const snippet = /```js\n([\s\S]*?)```/.exec(section)?.[1]
  if (!snippet) throw new Error('docs/API.md has no verification snippet')
  const file = join(t.testdir(), 'verify.mjs')
  await writeFile(file, snippet)
  const module = (await import(pathToFileURL(file).href)) as { verifyQuireSignature: Verify }
  return module.verifyQuireSignature
}
const definitionEvents = ['definition.create', 'definition.update', 'definition.delete']

t.test('definition changes are delivered signed, with the definition, to the webhooks of it or of any', async (t) => {
  const endpoint = await receiver(t)
  const { server, as, resources } = await build(t, { config })
  const invoices = await createDefinition(server, as.admin, { name: 'invoices' })
  const register = async (payload: Record<string, unknown>) => {
    const response = await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload })
    t.equal(response.statusCode, 201)
    return response.json().data as { _id: string; secret: string }
  }
  const everything = await register({ url: `${endpoint.url}?all`, events: definitionEvents })
  // Limited to invoices: its changes only, and a creation never (refused below).
  const ofInvoices = await register({
    url: `${endpoint.url}?invoices`,
    events: ['definition.update', 'definition.delete'],
    ddId: 'invoices',
  })
  const secrets = new Map([
    [everything._id, everything.secret],
    [ofInvoices._id, ofInvoices.secret],
  ])

  const orders = await createDefinition(server, as.admin, { name: 'orders', fields: { total: { type: 'number' } } })
  const renamed = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/${orders._id}`,
    headers: as.admin,
    payload: { label: 'Orders' },
  })
  t.equal(renamed.statusCode, 200)
  const patched = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/invoices`,
    headers: as.admin,
    payload: { label: 'Invoices' },
  })
  t.equal(patched.statusCode, 200)
  t.equal((await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/orders`, headers: as.admin })).statusCode, 200)
  t.equal(
    (await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/invoices`, headers: as.admin })).statusCode,
    200,
  )

  await endpoint.received(7)
  const verifyQuireSignature = await docsVerifier(t)
  for (const request of endpoint.requests) {
    const secret = secrets.get(request.headers['quire-webhook-id'] as string) ?? ''
    const header = request.headers['quire-signature'] as string
    t.ok(verifies(header, request.body, secret), 'signed')
    t.ok(verifyQuireSignature(request.body, header, secret), "the docs' snippet accepts it")
    t.notOk(verifyQuireSignature(`${request.body} `, header, secret), "the docs' snippet refuses another body")
  }
  // Deliveries may be sent side by side, so arrive in any order; event ids made in one process grow with time.
  const told = (target: string) =>
    endpoint.requests
      .filter((request) => request.url.endsWith(target))
      .map((request) => JSON.parse(request.body))
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((body) => [body.type, body.ddId, body.environmentId, body.data._id, body.data.name, body.data.label])
  t.same(told('?all'), [
    ['definition.create', orders._id, 'env_a', orders._id, 'orders', undefined],
    ['definition.update', orders._id, 'env_a', orders._id, 'orders', 'Orders'],
    ['definition.update', invoices._id, 'env_a', invoices._id, 'invoices', 'Invoices'],
    ['definition.delete', orders._id, 'env_a', orders._id, 'orders', 'Orders'],
    ['definition.delete', invoices._id, 'env_a', invoices._id, 'invoices', 'Invoices'],
  ])
  t.same(told('?invoices'), [
    ['definition.update', invoices._id, 'env_a', invoices._id, 'invoices', 'Invoices'],
    ['definition.delete', invoices._id, 'env_a', invoices._id, 'invoices', 'Invoices'],
  ])
  const first = endpoint.requests.map((request) => JSON.parse(request.body)).find((body) => body.data.name === 'orders')
  t.match(first?.data, { fields: { total: { type: 'number' } }, _environmentId: 'env_a' }, 'the definition as stored')
  t.notOk('_permissions' in first?.data)

  // Closing waits for the attempts in flight; each is listed without a documentId.
  await server.close()
  const next = await build(t, { config, resources })
  const listed = await next.server.inject({
    method: 'GET',
    url: `${WEBHOOKS}/${ofInvoices._id}/deliveries`,
    headers: next.as.admin,
  })
  t.equal(listed.statusCode, 200)
  t.match(listed.json().data, [
    { type: 'definition.delete', ddId: invoices._id, state: 'delivered' },
    { type: 'definition.update', ddId: invoices._id, state: 'delivered' },
  ])
  t.notOk('documentId' in listed.json().data[0])
})

t.test('a definition change refused before it commits is not told', async (t) => {
  const endpoint = await receiver(t)
  const { server, as, resources } = await build(t, { config })
  await server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: as.admin,
    payload: { url: endpoint.url, events: definitionEvents },
  })
  await createDefinition(server, as.admin, { name: 'orders' })
  const stale = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/orders`,
    headers: { ...as.admin, 'if-match': '"not-its-version"' },
    payload: { label: 'x' },
  })
  t.equal(stale.statusCode, 412)
  const taken = await server.inject({
    method: 'POST',
    url: DEFINITIONS,
    headers: as.admin,
    payload: { name: 'orders' },
  })
  t.equal(taken.statusCode, 409)
  const byMember = await server.inject({
    method: 'DELETE',
    url: `${DEFINITIONS}/orders`,
    headers: as.member,
  })
  t.equal(byMember.statusCode, 403)
  await endpoint.received(1)
  await server.close()
  const stored = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(resources.store).find({})
  t.same(
    stored.map((delivery) => [delivery.type, delivery.state]),
    [['definition.create', 'delivered']],
  )
  t.equal(endpoint.requests.length, 1)
})

t.test('only administrators register definition events, and nonsense combinations are refused', async (t) => {
  const { server, as } = await build(t)
  const url = 'https://hooks.example.com/quire'
  await createDefinition(server, as.admin, { name: 'orders' })
  const member = await server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: as.member,
    payload: { url, events: definitionEvents },
  })
  t.equal(member.statusCode, 403)
  t.equal(member.json().error, 'forbidden')

  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a query beside a definition event',
      { url, events: ['document.update', 'definition.update'], query: { total: 1 } },
      /query: applies to document events only, not to definition\.update/,
    ],
    [
      'definition.create limited to a definition',
      { url, events: ['definition.create'], ddId: 'orders' },
      /definition\.create never matches a ddId/,
    ],
  ]
  for (const [name, payload, description] of cases) {
    const response = await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload })
    t.equal(response.statusCode, 400, name)
    t.equal(response.json().error, 'validation_error', name)
    t.match(response.json().description, description, name)
  }
  t.equal((await server.inject({ method: 'GET', url: WEBHOOKS, headers: as.admin })).json().data.length, 0)

  // A patch is checked on what the webhook would become.
  const withQuery = (
    await server.inject({
      method: 'POST',
      url: WEBHOOKS,
      headers: as.admin,
      payload: { url, events: ['document.create'], query: { total: 1 }, ddId: 'orders' },
    })
  ).json().data
  const patches: [Record<string, unknown>, number][] = [
    [{ events: ['definition.delete'] }, 400],
    [{ events: ['definition.create'], query: null }, 400],
    [{ events: ['definition.create'], query: null, ddId: null }, 200],
    [{ query: { total: 2 } }, 400],
    [{ ddId: 'orders' }, 400],
  ]
  for (const [payload, status] of patches) {
    const response = await server.inject({
      method: 'PATCH',
      url: `${WEBHOOKS}/${withQuery._id}`,
      headers: as.admin,
      payload,
    })
    t.equal(response.statusCode, status, JSON.stringify(payload))
    if (status === 400) t.equal(response.json().error, 'validation_error')
  }
  const read = await server.inject({ method: 'GET', url: `${WEBHOOKS}/${withQuery._id}`, headers: as.admin })
  t.same(read.json().data.events, ['definition.create'])
  t.notOk('query' in read.json().data)
  t.notOk('ddId' in read.json().data)
})
