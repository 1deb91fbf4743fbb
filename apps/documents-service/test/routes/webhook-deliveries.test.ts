import t from 'tap'
import type { Collection } from '@quire/records'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import { build, createDefinition, createDocument, documentsOf, intercept } from '../helper.js'
import { receiver, verifies, WEBHOOKS } from '../webhooks-helper.js'

const config = { QUIRE_WEBHOOKS_ALLOW_PRIVATE: true }
const events = ['document.create', 'document.update', 'document.delete']

t.test('writes through the API are delivered signed, listed with their attempts, and redelivered', async (t) => {
  const endpoint = await receiver(t)
  const first = await build(t, { config })
  const { server, as, resources } = first
  const orders = await createDefinition(server, as.admin, { name: 'orders' })
  const hook = (
    await server.inject({
      method: 'POST',
      url: WEBHOOKS,
      headers: as.admin,
      payload: { url: endpoint.url, events, ddId: 'orders' },
    })
  ).json().data
  const document = await createDocument(server, as.member, 'orders', { total: 3 })
  const url = `${documentsOf('orders')}/${document._id}`
  await server.inject({ method: 'PATCH', url, headers: as.member, payload: { total: 4 } })
  await server.inject({ method: 'DELETE', url, headers: as.member })
  await endpoint.received(3)
  const bodies = endpoint.requests.map((request) => JSON.parse(request.body))
  t.same(
    bodies.map((body) => [body.type, body.ddId, body.data._id, body.data.total]),
    [
      ['document.create', orders._id, document._id, 3],
      ['document.update', orders._id, document._id, 4],
      ['document.delete', orders._id, document._id, 4],
    ],
  )
  for (const request of endpoint.requests) t.ok(verifies(request.headers['quire-signature'], request.body, hook.secret))

  // Closing waits for the attempts in flight to be recorded; the next app reads them.
  await server.close()
  const { server: next, as: nextAs } = await build(t, { config, resources })
  const admin = { ...nextAs.admin }
  const listed = await next.inject({ method: 'GET', url: `${WEBHOOKS}/${hook._id}/deliveries`, headers: admin })
  t.equal(listed.statusCode, 200)
  const deliveries = listed.json().data
  t.same(
    deliveries.map((each: { type: string; state: string }) => [each.type, each.state]),
    [
      ['document.delete', 'delivered'],
      ['document.update', 'delivered'],
      ['document.create', 'delivered'],
    ],
    'newest first',
  )
  t.match(deliveries[0].attempts, [{ attempt: 1, status: 200 }])
  t.notOk('body' in deliveries[0], 'the body sent is not listed')

  const redelivered = await next.inject({
    method: 'POST',
    url: `${WEBHOOKS}/${hook._id}/deliveries/${deliveries[2]._id}/redeliver`,
    headers: admin,
  })
  t.equal(redelivered.statusCode, 202)
  t.match(redelivered.json().data, { _id: deliveries[2]._id, state: 'waiting' })
  await endpoint.received(4)
  t.equal(endpoint.requests[3]?.body, endpoint.requests[0]?.body, 'the same body, the same event id')
  t.equal(endpoint.requests[3]?.headers['quire-delivery-id'], deliveries[2]._id)

  const unknown = await next.inject({
    method: 'POST',
    url: `${WEBHOOKS}/${hook._id}/deliveries/000000000000000000000000/redeliver`,
    headers: admin,
  })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error, 'delivery_not_found')
  const member = await next.inject({
    method: 'POST',
    url: `${WEBHOOKS}/${hook._id}/deliveries/${deliveries[2]._id}/redeliver`,
    headers: nextAs.member,
  })
  t.equal(member.statusCode, 403)
})

t.test('a delivery recorded before a restart is sent by the next process', async (t) => {
  const endpoint = await receiver(t)
  const { server, as, resources } = await build(t, { config })
  const { store } = resources
  await createDefinition(server, as.admin, { name: 'orders' })
  await server.inject({ method: 'POST', url: WEBHOOKS, headers: as.admin, payload: { url: endpoint.url, events } })
  // This process never finds a due delivery: it stops (as if killed) between the write and the delivery.
  const open = store.collection.bind(store)
  intercept(
    store,
    (name) => name === 'webhook_deliveries',
    (real: Collection) => ({
      find: (filter, options) => ('dueOn' in filter ? Promise.resolve([]) : real.find(filter, options)),
    }),
  )
  const document = await createDocument(server, as.admin, 'orders', { total: 1 })
  await server.close()
  store.collection = open
  const waiting = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(store).find({})
  t.match(waiting, [{ state: 'waiting', attempts: [], documentId: document._id }])
  t.equal(endpoint.requests.length, 0)

  await build(t, { config, resources })
  await endpoint.received(1)
  t.equal(JSON.parse(endpoint.requests[0]!.body).data._id, document._id)
})

t.test('two processes on one store deliver each change once', async (t) => {
  const endpoint = await receiver(t)
  const a = await build(t, { config })
  const b = await build(t, { config, resources: a.resources })
  await createDefinition(a.server, a.as.admin, { name: 'orders' })
  await a.server.inject({ method: 'POST', url: WEBHOOKS, headers: a.as.admin, payload: { url: endpoint.url, events } })
  const writes = 20
  for (let i = 0; i < writes; i++) {
    const { server, as } = i % 2 === 0 ? a : b
    await createDocument(server, as.admin, 'orders', { n: i })
  }
  await endpoint.received(writes)
  await Promise.all([a.server.close(), b.server.close()])
  t.equal(endpoint.requests.length, writes, 'no change sent twice')
  const ids = new Set(endpoint.requests.map((request) => request.headers['quire-delivery-id']))
  t.equal(ids.size, writes)
  const stored = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(a.resources.store).find({})
  t.equal(stored.length, writes)
  t.ok(stored.every((delivery) => delivery.state === 'delivered' && delivery.attempts.length === 1))
})

t.test('a paused webhook queues nothing while the others are sent', async (t) => {
  const endpoint = await receiver(t)
  const { server, as, resources } = await build(t, { config })
  await createDefinition(server, as.admin, { name: 'orders' })
  const paused = (
    await server.inject({
      method: 'POST',
      url: WEBHOOKS,
      headers: as.admin,
      payload: { url: endpoint.url, events, paused: true },
    })
  ).json().data
  const live = (
    await server.inject({
      method: 'POST',
      url: WEBHOOKS,
      headers: as.admin,
      payload: { url: `${endpoint.url}?live`, events },
    })
  ).json().data
  await createDocument(server, as.admin, 'orders', { total: 1 })
  await endpoint.received(1)
  t.same(
    endpoint.requests.map((request) => request.headers['quire-webhook-id']),
    [live._id],
  )
  const queued = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(resources.store).find({ webhookId: paused._id })
  t.same(queued, [], 'a paused webhook queues nothing')
})
