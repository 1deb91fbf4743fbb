import { randomBytes } from 'node:crypto'
import type { LookupAddress } from 'node:dns'
import t from 'tap'
import type { Scope } from '@quire/auth'
import { testResources } from '@quire/testing'
import { DOCUMENTS_COLLECTIONS, type DefinitionRecord, type DocumentRecord } from '../../src/collections.js'
import { createWebhooks, type WebhooksSettings } from '../../src/domain/webhooks/index.js'
import { sealer } from '../../src/lib/sealed.js'
import { publicLookup } from '../../src/lib/webhook-targets.js'
import type { TestContext } from '../helper.js'
import { receiver, verifies, type Received } from '../webhooks-helper.js'

const quiet = { warn: () => undefined, error: () => undefined }
const START = Date.parse('2026-01-01T00:00:00.000Z')
const scope: Scope = {
  userId: 'admin',
  via: 'access-token',
  superAdministrator: false,
  actionDepth: 0,
  environmentId: 'env_a',
  administrator: true,
  groups: [],
}
const definition = { _id: 'orders', _environmentId: 'env_a', name: 'orders' } as DefinitionRecord
const documentOf = (total: number): DocumentRecord => ({
  _id: `doc${total}`,
  _hash: 'h',
  _createdOn: new Date(START).toISOString(),
  _createdByUserId: 'admin',
  _lastModifiedOn: new Date(START).toISOString(),
  _lastModifiedByUserId: 'admin',
  _documentDefinitionId: 'orders',
  _environmentId: 'env_a',
  status: 'ready',
  accessGroups: [],
  total,
})

const SETTINGS: WebhooksSettings = {
  allowPrivate: true,
  perEnvironment: 20,
  waitingPerEnvironment: 100,
  concurrency: 8,
  concurrencyPerEnvironment: 2,
  timeoutMs: 5000,
  retryMs: 86_400_000,
  retentionMs: 86_400_000,
}

/** Webhooks over a fresh store, on a clock the test moves. */
async function setUp(t: TestContext, settings: Partial<WebhooksSettings> = {}, lookup = publicLookup()) {
  const { store } = await testResources(t)
  const clock = { now: START }
  const webhooks = createWebhooks({
    store,
    clock: () => clock.now,
    log: quiet,
    sealer: sealer(randomBytes(32)),
    settings: { ...SETTINGS, ...settings },
    lookup,
  })
  t.teardown(async () => {
    webhooks.stop()
    await webhooks.close()
  })
  const write = (
    kind: 'create' | 'update' | 'delete',
    document: DocumentRecord,
    previous: DocumentRecord | null = null,
  ) => store.transaction((tx) => webhooks.enqueue(tx, definition, kind, document, previous))
  const stored = () => DOCUMENTS_COLLECTIONS.webhookDeliveries.in(store).find({}, { sort: { _id: 1 } })
  return { store, clock, webhooks, write, stored }
}

t.test('a delivery is signed, carries its ids, and its attempt is recorded', async (t) => {
  const endpoint = await receiver(t)
  const { webhooks, write, stored } = await setUp(t)
  const hook = await webhooks.create(scope, { url: endpoint.url, events: ['document.create'] }, undefined)
  await write('create', documentOf(5))
  await webhooks.deliverDue()
  t.equal(endpoint.requests.length, 1)
  const [request] = endpoint.requests as [Received]
  const [delivery] = await stored()
  t.ok(
    verifies(request.headers['quire-signature'], request.body, hook.secret),
    'the signature verifies with the secret',
  )
  t.notOk(verifies(request.headers['quire-signature'], request.body, 'whsec_other'), 'and with no other secret')
  t.equal(request.headers['quire-webhook-id'], hook._id)
  t.equal(request.headers['quire-delivery-id'], delivery?._id)
  t.equal(request.headers['content-type'], 'application/json')
  t.match(request.headers['quire-signature'], new RegExp(`^t=${START / 1000},v1=[0-9a-f]{64}$`))
  const body = JSON.parse(request.body)
  t.same(Object.keys(body), ['id', 'type', 'environmentId', 'ddId', 'createdOn', 'data'])
  t.match(body, {
    id: delivery?.eventId,
    type: 'document.create',
    environmentId: 'env_a',
    ddId: 'orders',
    data: { _id: 'doc5', total: 5 },
  })
  t.match(delivery, { state: 'delivered', attempts: [{ attempt: 1, status: 200 }] })
  t.notOk(delivery?.dueOn)
})

t.test('a failing endpoint is retried with exponential backoff until it answers', async (t) => {
  const endpoint = await receiver(t, (_request, index) => ({ status: index < 3 ? 500 : 204 }))
  const { clock, webhooks, write, stored } = await setUp(t)
  await webhooks.create(scope, { url: endpoint.url, events: ['document.create'] }, undefined)
  await write('create', documentOf(1))
  const dueOns: string[] = []
  for (const wait of [0, 10_000, 20_000, 40_000]) {
    clock.now += wait
    // Not due a millisecond earlier: nothing is sent.
    await webhooks.deliverDue()
    const [delivery] = await stored()
    if (delivery?.dueOn) dueOns.push(delivery.dueOn)
  }
  t.equal(endpoint.requests.length, 4)
  const [delivery] = await stored()
  t.match(delivery, { state: 'delivered' })
  t.same(
    delivery?.attempts.map(({ attempt, status }) => [attempt, status]),
    [
      [1, 500],
      [2, 500],
      [3, 500],
      [4, 204],
    ],
  )
  // Each retry was due 10 s, then 20 s, then 40 s after the failure before it.
  t.same(
    dueOns.map((due) => Date.parse(due) - START),
    [10_000, 30_000, 70_000],
  )
  t.same(new Set(endpoint.requests.map((request) => request.headers['quire-delivery-id'])).size, 1, 'one delivery id')
})

t.test('nothing is sent before it is due, and retries stop past the retry window', async (t) => {
  const endpoint = await receiver(t, () => ({ status: 500 }))
  const { clock, webhooks, write, stored } = await setUp(t, { retryMs: 25_000 })
  await webhooks.create(scope, { url: endpoint.url, events: ['document.create'] }, undefined)
  await write('create', documentOf(1))
  await webhooks.deliverDue()
  clock.now += 9_999
  await webhooks.deliverDue()
  t.equal(endpoint.requests.length, 1, 'not retried before its backoff')
  clock.now += 1
  await webhooks.deliverDue()
  t.equal(endpoint.requests.length, 2)
  clock.now += 20_000
  await webhooks.deliverDue()
  t.equal(endpoint.requests.length, 2, 'the next retry would fall past the window')
  const [delivery] = await stored()
  t.match(delivery, { state: 'failed', attempts: [{ status: 500 }, { status: 500 }] })
  t.ok(delivery?.expiresOn)
})

t.test('a redirect is not followed', async (t) => {
  const endpoint = await receiver(t, (request) =>
    request.url === '/hook' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 },
  )
  const { webhooks, write, stored } = await setUp(t)
  await webhooks.create(scope, { url: endpoint.url, events: ['document.create'] }, undefined)
  await write('create', documentOf(1))
  await webhooks.deliverDue()
  t.same(
    endpoint.requests.map((request) => request.url),
    ['/hook'],
  )
  const [delivery] = await stored()
  t.match(delivery, { state: 'waiting', attempts: [{ status: 302, error: 'redirect not followed' }] })
})

t.test('events, definition, query and pause choose what is queued', async (t) => {
  const { webhooks, write, stored } = await setUp(t)
  const url = 'https://hooks.example.com/'
  const all = await webhooks.create(
    scope,
    { url, events: ['document.create', 'document.update', 'document.delete'] },
    undefined,
  )
  const big = await webhooks.create(
    scope,
    { url, events: ['document.update'], query: { total: { $gt: 10 } } },
    { definitionId: 'orders' },
  )
  await webhooks.create(scope, { url, events: ['document.create'] }, { definitionId: 'invoices' })
  await webhooks.create(scope, { url, events: ['document.create'], paused: true }, undefined)
  await write('create', documentOf(1))
  // An update that takes a document out of the query's sight is told too.
  await write('update', documentOf(2), documentOf(20))
  await write('update', documentOf(3), documentOf(4))
  await write('delete', documentOf(3))
  const queued = (await stored()).map((delivery) => [delivery.webhookId, delivery.type, delivery.documentId])
  t.same(queued, [
    [all._id, 'document.create', 'doc1'],
    [all._id, 'document.update', 'doc2'],
    [big._id, 'document.update', 'doc2'],
    [all._id, 'document.update', 'doc3'],
    [all._id, 'document.delete', 'doc3'],
  ])
  t.equal(new Set((await stored()).map((delivery) => delivery.eventId)).size, 4, 'one event id per change')
})

t.test('a rolled-back write queues nothing', async (t) => {
  const { store, webhooks, stored } = await setUp(t)
  await webhooks.create(scope, { url: 'https://hooks.example.com/', events: ['document.create'] }, undefined)
  await t.rejects(
    store.transaction(async (tx) => {
      await webhooks.enqueue(tx, definition, 'create', documentOf(1), null)
      throw new Error('the write failed')
    }),
  )
  t.same(await stored(), [])
})

t.test('definition events follow ddId, never a query, and only once their change commits', async (t) => {
  const { store, webhooks, stored } = await setUp(t)
  const url = 'https://hooks.example.com/'
  const any = await webhooks.create(scope, { url, events: ['definition.create', 'definition.delete'] }, undefined)
  const ofOrders = await webhooks.create(scope, { url, events: ['definition.update'] }, { definitionId: 'orders' })
  await webhooks.create(scope, { url, events: ['document.create', 'document.update'] }, undefined)
  const invoices = { ...definition, _id: 'invoices', name: 'invoices' }
  const tell = (kind: 'create' | 'update' | 'delete', told: DefinitionRecord) =>
    store.transaction((tx) => webhooks.enqueueDefinition(tx, kind, told))
  await tell('create', invoices)
  await tell('update', invoices)
  await tell('update', definition)
  await tell('delete', definition)
  await t.rejects(
    store.transaction(async (tx) => {
      await webhooks.enqueueDefinition(tx, 'delete', invoices)
      throw new Error('the deletion failed')
    }),
  )
  t.same(
    (await stored()).map((delivery) => [delivery.webhookId, delivery.type, delivery.definitionId, delivery.documentId]),
    [
      [any._id, 'definition.create', 'invoices', undefined],
      [ofOrders._id, 'definition.update', 'orders', undefined],
      [any._id, 'definition.delete', 'orders', undefined],
    ],
  )
  await t.rejects(webhooks.create(scope, { url, events: ['definition.delete'], query: { total: 1 } }, undefined), {
    code: 'validation_error',
  })
})

t.test('past the waiting cap a change is still recorded, failed, and can be redelivered later', async (t) => {
  const endpoint = await receiver(t)
  const { webhooks, write, stored } = await setUp(t, { waitingPerEnvironment: 1 })
  const hook = await webhooks.create(scope, { url: endpoint.url, events: ['document.create'] }, undefined)
  await write('create', documentOf(1))
  await write('create', documentOf(2))
  const [first, second] = await stored()
  t.match(first, { state: 'waiting' })
  t.match(second, { state: 'failed', attempts: [{ error: /queue_full/ }] })
  await t.rejects(webhooks.redeliver('env_a', hook._id, second!._id), { code: 'rate_limited' })
  await webhooks.deliverDue()
  const redelivered = await webhooks.redeliver('env_a', hook._id, second!._id)
  t.match(redelivered, { state: 'waiting' })
  await webhooks.deliverDue()
  t.same(
    endpoint.requests.map((request) => JSON.parse(request.body).data._id),
    ['doc1', 'doc2'],
  )
  await t.rejects(webhooks.redeliver('env_b', hook._id, second!._id), { code: 'delivery_not_found' })
})

t.test(
  "a claim is its claimer's until its lease ends; then another process takes it, and one attempt is kept",
  async (t) => {
    const { store } = await testResources(t)
    const clock = { now: START }
    const key = sealer(randomBytes(32))
    const sentBy: string[] = []
    let stalled = () => {}
    const aStalled = new Promise<void>((resolve) => (stalled = resolve))
    let unfreeze = () => {}
    const frozen = new Promise<void>((resolve) => (unfreeze = resolve))
    /** One process of two sharing the store: A's attempt hangs (a frozen process) until the test lets it go. */
    const instance = (name: 'A' | 'B') => {
      const webhooks = createWebhooks({
        store,
        clock: () => clock.now,
        log: quiet,
        sealer: key,
        settings: SETTINGS,
        send: async () => {
          sentBy.push(name)
          if (name === 'A') {
            stalled()
            await frozen
          }
          return { status: 200, durationMs: 1 }
        },
      })
      t.teardown(async () => {
        webhooks.stop()
        await webhooks.close()
      })
      return webhooks
    }
    const [a, b] = [instance('A'), instance('B')]
    await a.create(scope, { url: 'https://hooks.example.com/', events: ['document.create'] }, undefined)
    await store.transaction((tx) => a.enqueue(tx, definition, 'create', documentOf(1), null))
    const aDone = a.deliverDue()
    await aStalled
    await b.deliverDue()
    t.same(sentBy, ['A'], 'while A holds the claim, B sends nothing')
    // The lease is the attempt's time limit and a grace: past it, B takes the delivery over.
    clock.now += SETTINGS.timeoutMs + 30_000 + 1
    await b.deliverDue()
    t.same(sentBy, ['A', 'B'])
    unfreeze()
    await aDone
    const [delivery] = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(store).find({})
    t.match(delivery, { state: 'delivered', attempts: [{ attempt: 1, status: 200 }] })
    t.equal(delivery?.attempts.length, 1, "A's late answer is not recorded over B's")
  },
)

t.test('one environment cannot hold every slot', async (t) => {
  const held: (() => void)[] = []
  const seen: string[] = []
  let third = () => {}
  const threeStarted = new Promise<void>((resolve) => (third = resolve))
  const { store } = await testResources(t)
  const webhooks = createWebhooks({
    store,
    clock: () => START,
    log: quiet,
    sealer: sealer(randomBytes(32)),
    settings: { ...SETTINGS, concurrency: 3, concurrencyPerEnvironment: 2 },
    // A slow endpoint: attempts wait until the test lets them go.
    send: async (delivery) => {
      seen.push(JSON.parse(delivery.body).environmentId)
      if (seen.length === 3) third()
      // The first three are held; any later one (once they are let go) answers at once.
      if (seen.length <= 3) await new Promise<void>((resolve) => held.push(resolve))
      return { status: 200, durationMs: 1 }
    },
  })
  const scopeB = { ...scope, environmentId: 'env_b' }
  const definitionB = { ...definition, _environmentId: 'env_b' }
  await webhooks.create(scope, { url: 'https://a.example.com/', events: ['document.create'] }, undefined)
  await webhooks.create(scopeB, { url: 'https://b.example.com/', events: ['document.create'] }, undefined)
  for (let i = 0; i < 5; i++) {
    await store.transaction((tx) => webhooks.enqueue(tx, definition, 'create', documentOf(i), null))
  }
  await store.transaction((tx) => webhooks.enqueue(tx, definitionB, 'create', documentOf(9), null))
  const started = webhooks.deliverDue()
  // Two of A's (its share) and B's one start; A's other three wait.
  await threeStarted
  t.same([...seen].sort(), ['env_a', 'env_a', 'env_b'])
  while (held.length > 0) held.shift()?.()
  await started
  webhooks.stop()
  await webhooks.close()
})

t.test(
  'at delivery, a name that resolves to a non-public address is refused; the address connected to is checked',
  async (t) => {
    const endpoint = await receiver(t)
    // `hooks.example.test` resolves to the receiver's loopback address, as a rebinding name would.
    const resolve = (_name: string, _options: object, callback: (e: null, all: LookupAddress[]) => void) =>
      callback(null, [
        { address: '::ffff:127.0.0.1', family: 6 },
        { address: '127.0.0.1', family: 4 },
      ])
    const { webhooks, write, stored } = await setUp(t, { allowPrivate: false }, publicLookup(resolve))
    await webhooks.create(
      scope,
      { url: `http://hooks.example.test:${endpoint.port}/hook`, events: ['document.create'] },
      undefined,
    )
    await webhooks.create(
      scope,
      { url: `http://localhost:${endpoint.port}/hook`, events: ['document.create'] },
      undefined,
    )
    await write('create', documentOf(1))
    await webhooks.deliverDue()
    t.equal(endpoint.requests.length, 0, 'nothing reached the loopback endpoint')
    for (const delivery of await stored()) {
      t.match(delivery, { state: 'waiting', attempts: [{ error: /EWEBHOOKTARGET: .* resolves to no public address/ }] })
      t.notOk(delivery.attempts[0]?.status)
    }
  },
)

t.test('at delivery, an address written in the URL is checked again', async (t) => {
  const endpoint = await receiver(t)
  const { store, webhooks, write, stored } = await setUp(t, { allowPrivate: false })
  const hook = await webhooks.create(
    scope,
    { url: 'https://hooks.example.com/', events: ['document.create'] },
    undefined,
  )
  // Stored before private targets were refused (or by hand): the delivery still refuses it.
  await DOCUMENTS_COLLECTIONS.webhooks.in(store).updateOne({ _id: hook._id }, { $set: { url: endpoint.url } })
  await write('create', documentOf(1))
  await webhooks.deliverDue()
  t.equal(endpoint.requests.length, 0)
  const [delivery] = await stored()
  t.match(delivery, { attempts: [{ error: /127\.0\.0\.1 is not a public address/ }] })
})

t.test('publicLookup keeps only the public addresses a name resolves to', async (t) => {
  const resolve = (_name: string, _options: object, callback: (e: null, all: LookupAddress[]) => void) =>
    callback(null, [
      { address: '10.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
      { address: 'fe80::1', family: 6 },
    ])
  const lookup = publicLookup(resolve)
  const all = await new Promise((resolve) => lookup('x.test', { all: true }, (_e, addresses) => resolve(addresses)))
  t.same(all, [{ address: '93.184.216.34', family: 4 }])
  const one = await new Promise((resolve) => lookup('x.test', {}, (_e, address, family) => resolve([address, family])))
  t.same(one, ['93.184.216.34', 4])
})
