import t from 'tap'
import { testResources } from '@quire/testing'
import { ADMIN, ADMIN_ENV, serve } from './serve.js'
import { createQuireClient, SubscriptionRefused, type Change } from '@quire/client'

/** Changes as they arrive, and a way to wait for the n-th. */
function collector() {
  const changes: Change[] = []
  let wake: () => void = () => undefined
  return {
    changes,
    onEvent: (change: Change) => {
      changes.push(change)
      wake()
    },
    async next(count: number): Promise<Change[]> {
      while (changes.length < count) await new Promise<void>((resolve) => (wake = resolve))
      return changes.slice(0, count)
    },
  }
}

t.test('subscribe delivers changes in order and resumes from the last id', async (t) => {
  const resources = await testResources(t)
  const baseUrl = await serve(t, resources)
  const login = await createQuireClient({ baseUrl }).POST('/auth/login', { body: ADMIN })
  const client = createQuireClient({ baseUrl, token: login.data?.data.accessToken, environmentId: 'default' })
  const definition = await client.POST('/api/v2/document-definitions', { body: { name: 'tasks' } })
  const ddId = definition.data?.data._id ?? ''
  const create = (n: number) =>
    client.POST('/api/v2/document-definitions/{ddId}/documents/new', { params: { path: { ddId } }, body: { n } })

  const first = collector()
  const subscription = client.subscribe(ddId, { fields: { n: 1 } }, first.onEvent)
  // The first creates can race the subscription's opening: created until one is seen.
  const created: number[] = []
  for (let n = 1; first.changes.length === 0; n++) {
    await create(n)
    created.push(n)
    await Promise.race([first.next(1), new Promise((resolve) => setImmediate(resolve))])
  }
  subscription.close()
  await subscription.done
  t.equal(subscription.lastEventId, first.changes.at(-1)?.id, 'lastEventId is the last change handled')

  await create(100)
  created.push(100)
  const second = collector()
  const resumed = client.subscribe(ddId, { lastEventId: subscription.lastEventId }, second.onEvent)
  while (!second.changes.some((change) => change.operation === 'create' && change.document.n === 100)) {
    await second.next(second.changes.length + 1)
  }
  resumed.close()
  await resumed.done
  const seen = [...first.changes, ...second.changes].map((change) =>
    change.operation === 'create' ? Number(change.document.n) : 0,
  )
  // Those created before the first subscription opened are not its; every later one is seen once, in order.
  t.same(seen, created.slice(created.indexOf(seen[0] ?? 0)), 'every change once, in order, across the two')

  const refused = client.subscribe('no-such-definition', {}, () => undefined)
  await t.rejects(refused.done, SubscriptionRefused, 'a refusal ends the subscription')
  await refused.done.catch((error: SubscriptionRefused) => t.equal(error.status, 404))
})

t.test('the stream goes through a gateway that proxies the documents service, unbuffered', async (t) => {
  const resources = await testResources(t)
  const started = (env: Record<string, string>) => serve(t, resources, env)
  const documents = await started(ADMIN_ENV)
  const baseUrl = await started({ QUIRE_DOCUMENTS_URL: documents })
  const login = await createQuireClient({ baseUrl }).POST('/auth/login', { body: ADMIN })
  const token = login.data?.data.accessToken ?? ''
  const client = createQuireClient({ baseUrl, token, environmentId: 'default' })
  const definition = await client.POST('/api/v2/document-definitions', { body: { name: 'tasks' } })
  const ddId = definition.data?.data._id ?? ''

  const response = await fetch(`${baseUrl}/api/v2/document-definitions/${ddId}/documents/changes`, {
    headers: { authorization: `Bearer ${token}`, 'environment-id': 'default', accept: 'text/event-stream' },
  })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/event-stream/)
  t.equal(response.headers.get('cache-control'), 'no-cache, no-transform')
  const reader = response.body?.getReader()
  const opening = new TextDecoder().decode((await reader?.read())?.value)
  t.match(opening, /^retry: 2000/, 'the opening crosses the proxy before any change')
  await client.POST('/api/v2/document-definitions/{ddId}/documents/new', { params: { path: { ddId } }, body: { n: 1 } })
  let text = ''
  while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader?.read())?.value)
  t.match(text, /^id: .+\nevent: create\ndata: \{"_id":/, 'a change arrives while the stream stays open')
  await reader?.cancel()
})

t.test('the stream carries the edge headers every answer does: security, CORS, its request id', async (t) => {
  const resources = await testResources(t)
  const origin = 'https://app.example'
  const baseUrl = await serve(t, resources, { ...ADMIN_ENV, QUIRE_CORS_ORIGINS: origin })
  const login = await createQuireClient({ baseUrl }).POST('/auth/login', { body: ADMIN })
  const token = login.data?.data.accessToken ?? ''
  const headers = { authorization: `Bearer ${token}`, 'environment-id': 'default', origin }
  const client = createQuireClient({ baseUrl, token, environmentId: 'default' })
  const definition = await client.POST('/api/v2/document-definitions', { body: { name: 'tasks' } })
  const documents = `${baseUrl}/api/v2/document-definitions/${definition.data?.data._id ?? ''}/documents`

  const list = await fetch(documents, { headers })
  await list.arrayBuffer()
  const stream = await fetch(`${documents}/changes`, { headers: { ...headers, accept: 'text/event-stream' } })
  t.equal(stream.status, 200)
  const own = new Set(['content-type', 'content-length', 'date', 'etag', 'x-request-id', 'cache-control'])
  const edge = [...list.headers].filter(([name]) => !own.has(name))
  t.ok(
    edge.some(([name]) => name === 'x-content-type-options'),
    'the security headers are compared',
  )
  t.ok(
    edge.some(([name]) => name === 'access-control-allow-origin'),
    'the CORS headers are compared',
  )
  t.same(
    edge.filter(([name]) => stream.headers.get(name) !== list.headers.get(name)),
    [],
    'every edge header of a JSON answer, with the same value',
  )
  t.match(stream.headers.get('x-request-id'), /^[\w-]{8,}$/)
  t.not(stream.headers.get('x-request-id'), list.headers.get('x-request-id'), 'its own request id')
  await stream.body?.cancel()
})
