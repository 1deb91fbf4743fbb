import t from 'tap'
import { openRecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import { listening, open, type Received } from '../changes-helper.js'
import { build, createDefinition, createDocument, DEFINITIONS, documentsOf, type Built } from '../helper.js'
import { receiver, WEBHOOKS } from '../webhooks-helper.js'

type Event = Received & { data: { _id: string; document?: Record<string, unknown> } }
const summary = (events: Received[]) =>
  (events as Event[]).map(({ event, data }) => `${event}:${String(data.document?.n ?? data._id)}`)

/**
 * Two instances of the service on one data directory, as two replicas (or processes) are: each opens the store
 * itself, so neither shares the other's caches, counters or in-process wake-ups; only the store joins them.
 */
async function twoInstances(t: Parameters<typeof build>[0], config: Parameters<typeof build>[1] = {}) {
  const a = await build(t, config)
  const store = await openRecordStore({ dataDir: a.resources.dataDir })
  t.teardown(() => store.close())
  const b = await build(t, { ...config, resources: { ...a.resources, store } })
  return { a, b }
}

const write = (built: Built, ddId: string, method: string, url: string, payload?: object) =>
  built.server.inject({ method, url: `${documentsOf(ddId)}${url}`, headers: built.as.admin, payload })

t.test('a write through one instance reaches a subscriber of the other, in order and resumable', async (t) => {
  const { a, b } = await twoInstances(t)
  const ddId = (await createDefinition(a.server, a.as.admin, { name: 'tasks' }))._id
  const [baseA, baseB] = [await listening(a.server), await listening(b.server)]
  const onB = await open(baseB, ddId, b.as.admin)
  const first = await createDocument(a.server, a.as.admin, ddId, { n: 1 })
  await createDocument(b.server, b.as.admin, ddId, { n: 2 })
  t.equal((await write(a, ddId, 'PATCH', `/${first._id}`, { n: 3 })).statusCode, 200)
  t.equal((await write(a, ddId, 'DELETE', `/${first._id}`)).statusCode, 200)
  const seen = await onB.next(4)
  t.same(summary(seen), ['create:1', 'create:2', 'update:3', `delete:${first._id}`], 'in commit order')
  onB.close()

  // Resumed on either instance after the second event: the rest, without loss or duplicates.
  await createDocument(a.server, a.as.admin, ddId, { n: 4 })
  for (const [name, base, as] of [
    ['A', baseA, a.as.admin],
    ['B', baseB, b.as.admin],
  ] as const) {
    const resumed = await open(base, ddId, as, { lastEventId: seen[1]?.id })
    const rest = await resumed.next(3)
    t.same(summary(rest), ['update:3', `delete:${first._id}`, 'create:4'], `resumed on ${name}`)
    t.same(
      rest.slice(0, 2).map((event) => event.id),
      seen.slice(2).map((event) => event.id),
      `a token means one change on either instance (${name})`,
    )
    resumed.close()
  }

  // The definition deleted through A ends B's stream of it (B reads that from the log too).
  const last = await open(baseB, ddId, b.as.admin, { lastEventId: seen[3]?.id })
  t.same(summary(await last.next(1)), ['create:4'])
  const removed = await a.server.inject({
    method: 'DELETE',
    url: `${DEFINITIONS}/${ddId}?force=true`,
    headers: a.as.admin,
  })
  t.equal(removed.statusCode, 200)
  t.same(summary(await last.end()), ['create:4'], 'the stream on B ends with nothing more')
})

t.test('with two instances running, each webhook delivery is made once', async (t) => {
  const endpoint = await receiver(t)
  const config = { config: { QUIRE_WEBHOOKS_ALLOW_PRIVATE: true } }
  const { a, b } = await twoInstances(t, config)
  const events = ['document.create', 'document.update', 'definition.update']
  const hook = await a.server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: a.as.admin,
    payload: { url: endpoint.url, events },
  })
  t.equal(hook.statusCode, 201)
  const ddId = (await createDefinition(b.server, b.as.admin, { name: 'orders' }))._id
  const writes = 20
  for (let i = 0; i < writes; i++) {
    const { server, as } = i % 2 === 0 ? a : b
    await createDocument(server, as.admin, ddId, { n: i })
  }
  const relabelled = await a.server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/${ddId}`,
    headers: a.as.admin,
    payload: { label: 'Orders' },
  })
  t.equal(relabelled.statusCode, 200)
  await endpoint.received(writes + 1)
  // Both instances close (waiting for what they have in flight); nothing more was sent meanwhile.
  await Promise.all([a.server.close(), b.server.close()])
  t.equal(endpoint.requests.length, writes + 1, 'no change sent twice')
  const ids = endpoint.requests.map((request) => request.headers['quire-delivery-id'])
  t.equal(new Set(ids).size, writes + 1)
  const stored = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(a.resources.store).find({})
  t.equal(stored.length, writes + 1)
  t.ok(
    stored.every((delivery) => delivery.state === 'delivered' && delivery.attempts.length === 1),
    'each delivered at its first attempt, recorded once',
  )
})
