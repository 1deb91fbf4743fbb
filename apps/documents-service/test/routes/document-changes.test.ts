import { request as httpRequest } from 'node:http'
import t from 'tap'
import { IDENTITY_COLLECTIONS } from '@quire/identity'
import { openRecordStore } from '@quire/records'
import type { ChangeFeed } from '../../src/domain/change-feed.js'
import { createChangeLog } from '../../src/domain/change-log.js'
import { listening, open, subscribe, type Opened, type Received } from '../changes-helper.js'
import {
  build,
  createDefinition,
  createDocument,
  DEFINITIONS,
  documentsOf,
  ENV_A,
  getDocument,
  type Built,
} from '../helper.js'

type Event = Received & { data: { _id: string; operation: string; document?: Record<string, unknown> } }
const summary = (events: Received[]) =>
  (events as Event[]).map(({ event, data }) => `${event}:${String(data.document?.n ?? data._id)}`)

async function world(t: Parameters<typeof build>[0], config: Parameters<typeof build>[1] = {}) {
  const built = await build(t, config)
  const base = await listening(built.server)
  const definition = await createDefinition(built.server, built.as.admin, { name: 'tasks' })
  return { ...built, base, ddId: definition._id }
}

/** `world` and the service's change feed (decorated inside the service's scope, so read from a request there). */
async function worldWithFeed(t: Parameters<typeof build>[0]) {
  let feed: ChangeFeed | undefined
  const built = await build(t, {
    prepare: (server) =>
      server.addHook('onRequest', async (request) => {
        feed ??= request.server.changeFeed
      }),
  })
  const base = await listening(built.server)
  const definition = await createDefinition(built.server, built.as.admin, { name: 'tasks' })
  if (!feed) throw new Error('the change feed was not found')
  return { ...built, base, ddId: definition._id, feed }
}

const write = (built: Built, ddId: string, method: string, url: string, payload?: object) =>
  built.server.inject({ method, url: `${documentsOf(ddId)}${url}`, headers: built.as.admin, payload })

/** `subscribe` again until the server has seen a closed subscription go (each try is a new request). */
async function subscribeWhenFree(...args: Parameters<typeof subscribe>): Promise<Opened> {
  for (let attempt = 0; ; attempt++) {
    const opened = await subscribe(...args)
    if (opened.status !== 429 || attempt === 1000) return opened
    await new Promise((resolve) => setImmediate(resolve))
  }
}

t.test('create, update and delete reach a subscriber, each document as its GET answers it', async (t) => {
  const built = await world(t)
  const { server, as, base, ddId } = built
  const reader = await open(base, ddId, as.member)
  const created = await createDocument(server, as.admin, ddId, { n: 1 })
  t.equal((await write(built, ddId, 'PATCH', `/${created._id}`, { n: 2 })).statusCode, 200)
  const read = await getDocument(server, as.member, ddId, created._id)
  t.equal((await write(built, ddId, 'DELETE', `/${created._id}`)).statusCode, 200)
  const events = (await reader.next(3)) as Event[]
  t.same(summary(events), ['create:1', 'update:2', `delete:${created._id}`])
  t.same(
    events[1]?.data,
    { _id: created._id, operation: 'update', document: read },
    'the member GET, _permissions included',
  )
  t.same(events[2]?.data, { _id: created._id, operation: 'delete' })
  t.equal(new Set(events.map((event) => event.id)).size, 3, 'each event has its own id')
  reader.close()
})

t.test('query and fields shape what is sent; a document leaving the query is a delete', async (t) => {
  const built = await world(t)
  const { server, as, base, ddId } = built
  const reader = await open(base, ddId, as.admin, { query: { n: { $gte: 5 } }, fields: { n: 1 } })
  await createDocument(server, as.admin, ddId, { n: 1, other: 'x' })
  const big = await createDocument(server, as.admin, ddId, { n: 7, other: 'y' })
  await write(built, ddId, 'PATCH', `/${big._id}`, { n: 3 })
  const events = (await reader.next(2)) as Event[]
  t.same(summary(events), ['create:7', `delete:${big._id}`])
  t.same(Object.keys(events[0]?.data.document ?? {}).sort(), ['_id', 'n'], 'only the fields asked for')

  const refused = await subscribe(base, ddId, as.admin, { query: { $where: 'true' } })
  t.equal(refused.status, 400)
  t.match(refused, { body: { error: 'invalid_query' } })
  reader.close()
})

t.test('a member never receives what it could not GET, and a delete when access is taken away', async (t) => {
  const built = await world(t)
  const { server, as, base, ddId } = built
  const member = await open(base, ddId, as.member)
  const sales = await open(base, ddId, as.sales)
  const hidden = await createDocument(server, as.admin, ddId, { n: 1, accessGroups: ['sales'] })
  const open_ = await createDocument(server, as.admin, ddId, { n: 2 })
  await write(built, ddId, 'PATCH', `/${open_._id}`, { n: 3, accessGroups: ['sales'] })
  await write(built, ddId, 'PATCH', `/${hidden._id}`, { n: 4, accessGroups: [] })
  // In order: a hidden change sent by mistake would come before the last one.
  t.same(summary(await member.next(3)), ['create:2', `delete:${open_._id}`, 'update:4'], 'member: only what it sees')
  t.same(summary(await sales.next(4)), ['create:1', 'create:2', 'update:3', 'update:4'], 'sales sees all four')
  const outsider = await subscribe(base, ddId, as.outsider)
  t.equal(outsider.status, 403, 'a user of another environment is refused')
  member.close()
  sales.close()
})

t.test('subscribers of one view all receive every event in order; other rights their own _permissions', async (t) => {
  const built = await world(t, { config: { QUIRE_CHANGE_FEED_PER_USER: 20 } })
  const { server, as, base, ddId } = built
  const admins = await Promise.all(Array.from({ length: 20 }, () => open(base, ddId, as.admin)))
  const member = await open(base, ddId, as.member)
  const sales = await open(base, ddId, as.sales)
  const operations = Array.from({ length: 30 }, (_, n) => ({ op: 'create', body: { n } }))
  const bulk = await write(built, ddId, 'POST', '/bulk', { operations })
  t.equal(bulk.statusCode, 200)
  const shared = await createDocument(server, as.admin, ddId, { n: 30, accessGroups: ['sales'] })

  const expected = Array.from({ length: 31 }, (_, n) => `create:${n}`)
  const received = await Promise.all(admins.map((reader) => reader.next(31)))
  for (const events of received) t.same(summary(events), expected)
  t.same(
    new Set(received.map((events) => events.map((event) => event.id).join())).size,
    1,
    'every subscriber of the view has the same event ids',
  )
  // The sales document as each one's own GET answers it: `_permissions` are the subscriber's.
  const adminView = (received[0]?.[30] as Event | undefined)?.data.document
  t.same(adminView, await getDocument(server, as.admin, ddId, shared._id))
  const salesView = ((await sales.next(31)) as Event[])[30]?.data.document
  t.same(salesView, await getDocument(server, as.sales, ddId, shared._id))
  t.not(JSON.stringify(adminView?._permissions), JSON.stringify(salesView?._permissions), 'each its own _permissions')
  // In order: had the sales document reached the member, it would come before this one.
  await createDocument(server, as.admin, ddId, { n: 31 })
  t.same(summary(await member.next(31)), [...expected.slice(0, 30), 'create:31'], 'the member never sees it')
  for (const reader of [...admins, member, sales]) reader.close()
})

t.test('Last-Event-ID resumes without loss or duplicates; unknown and expired ids are refused', async (t) => {
  const built = await world(t, { config: { QUIRE_CHANGE_LOG_MAX_ENTRIES: 100 } })
  const { server, as, base, ddId } = built
  const first = await open(base, ddId, as.admin)
  await createDocument(server, as.admin, ddId, { n: 1 })
  await createDocument(server, as.admin, ddId, { n: 2 })
  const [one] = await first.next(1)
  first.close()
  await createDocument(server, as.admin, ddId, { n: 3 })
  const resumed = await open(base, ddId, as.admin, { lastEventId: one?.id })
  await createDocument(server, as.admin, ddId, { n: 4 })
  t.same(summary(await resumed.next(3)), ['create:2', 'create:3', 'create:4'])
  resumed.close()

  const malformed = await subscribe(base, ddId, as.admin, { lastEventId: 'not-a-token' })
  t.equal(malformed.status, 400)
  t.match(malformed, { body: { error: 'validation_error' } })

  const operations = Array.from({ length: 150 }, (_, n) => ({ op: 'create', body: { n: 10 + n } }))
  const bulk = await server.inject({
    method: 'POST',
    url: `${documentsOf(ddId)}/bulk`,
    headers: as.admin,
    payload: { operations },
  })
  t.equal(bulk.statusCode, 200)
  const changeLog = createChangeLog({
    store: built.resources.store,
    clock: Date.now,
    limits: { retentionMs: 3_600_000, maxEntries: 100 },
  })
  const sweeps = [changeLog.sweep(), changeLog.sweep()]
  t.equal(sweeps[0], sweeps[1], 'a sweep asked for while one runs joins it')
  t.equal(await sweeps[0], 55, 'the sweep keeps the last 100 of 155 entries (a definition, 154 documents)')
  const gone = await subscribe(base, ddId, as.admin, { lastEventId: one?.id })
  t.equal(gone.status, 410)
  t.match(gone, { body: { error: 'resume_token_expired' } })
})

t.test('no change is lost across a restart between the write and the delivery', async (t) => {
  const built = await world(t)
  const { server, as, base, ddId, resources } = built
  const reader = await open(base, ddId, as.admin)
  await createDocument(server, as.admin, ddId, { n: 1 })
  const [seen] = await reader.next(1)
  reader.close()
  await createDocument(server, as.admin, ddId, { n: 2 })
  await server.close()

  const store = await openRecordStore({ dataDir: resources.dataDir })
  t.teardown(() => store.close())
  const restarted = await build(t, { resources: { ...resources, store } })
  const resumed = await open(await listening(restarted.server), ddId, restarted.as.admin, { lastEventId: seen?.id })
  t.same(summary(await resumed.next(1)), ['create:2'], 'the write committed before the restart is delivered')
  resumed.close()
})

t.test('subscriptions are capped per user and per environment', async (t) => {
  const built = await world(t, { config: { QUIRE_CHANGE_FEED_PER_USER: 1, QUIRE_CHANGE_FEED_PER_ENVIRONMENT: 2 } })
  const { as, base, ddId } = built
  const first = await open(base, ddId, as.member)
  const again = await subscribe(base, ddId, as.member)
  t.equal(again.status, 429)
  t.match(again, { body: { error: 'rate_limited' } })
  const second = await open(base, ddId, as.sales)
  const third = await subscribe(base, ddId, as.admin)
  t.equal(third.status, 429, 'the environment is full')
  first.close()
  // Closing frees the place once the server saw the close.
  t.equal((await subscribeWhenFree(base, ddId, as.admin)).status, 200)
  second.close()
})

t.test('a reader too slow for its buffer gets a final resume event, then the stream ends', async (t) => {
  const built = await world(t, { config: { QUIRE_CHANGE_FEED_BUFFER: 2, QUIRE_CHANGE_FEED_PER_USER: 1 } })
  const { server, as, base, ddId } = built
  const reader = await open(base, ddId, as.admin)
  reader.response.pause()
  const payload = 'x'.repeat(256 * 1024)
  // Until the socket's buffers are full and two more events wait: while the slow subscription is open, the
  // user's one place is taken.
  let place: Opened | undefined
  for (let n = 0; place?.status !== 200 && n < 400; n++) {
    await createDocument(server, as.admin, ddId, { n, payload })
    place = await subscribe(base, ddId, as.admin)
  }
  t.equal(place?.status, 200, 'the slow subscription was dropped')
  if (place && 'reader' in place) place.reader.close()
  reader.response.resume()
  const events = await reader.end()
  t.equal(events.at(-1)?.event, 'resume', 'its last event tells it to resume')
  t.same(events.at(-1)?.data, { reason: 'buffer_full' })
  const resumed = await open(base, ddId, as.admin, { lastEventId: events.at(-2)?.id })
  resumed.close()
})

t.test('a deactivated user is disconnected at its next event; a deleted definition ends its streams', async (t) => {
  const built = await world(t, { config: { QUIRE_CHANGE_FEED_RECHECK_MS: 0 } })
  const { server, as, base, ddId, resources } = built
  const member = await open(base, ddId, as.member)
  const admin = await open(base, ddId, as.admin)
  const token = as.member.authorization?.slice('Bearer '.length) ?? ''
  const userId = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sub: string }
  await IDENTITY_COLLECTIONS.users
    .in(resources.store)
    .updateOne({ _id: userId.sub }, { $set: { [`profile.environments.${ENV_A}.active`]: false } })
  await createDocument(server, as.admin, ddId, { n: 1 })
  t.same(summary(await admin.next(1)), ['create:1'])
  t.same(await member.end(), [], 'the deactivated member got nothing and was disconnected')

  const removed = await server.inject({ method: 'DELETE', url: `${DEFINITIONS}/${ddId}?force=true`, headers: as.admin })
  t.equal(removed.statusCode, 200)
  t.same(summary(await admin.end()), ['create:1'], 'the stream of a deleted definition ends')
})

t.test('the stream says what it is: event stream, no caching or proxy buffering, its request id', async (t) => {
  const { as, base, ddId, feed } = await worldWithFeed(t)
  const requestId = 'stream-request-0001'
  const reader = await open(base, ddId, { ...as.member, 'x-request-id': requestId })
  t.match(reader.response.headers, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-request-id': requestId,
    'transfer-encoding': 'chunked',
  })
  t.equal(feed.open(ENV_A), 1)
  reader.close()
})

t.test("a HEAD answers the stream's headers and holds no subscription open", async (t) => {
  const { as, base, ddId, feed } = await worldWithFeed(t)
  const answer = await new Promise<{ status?: number; type?: string; body: string }>((resolve, reject) => {
    httpRequest(`${base}${documentsOf(ddId)}/changes`, { method: 'HEAD', headers: as.member }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode, type: response.headers['content-type'], body }))
    })
      .on('error', reject)
      .end()
  })
  t.same(answer, { status: 200, type: 'text/event-stream; charset=utf-8', body: '' })
  t.equal(feed.open(ENV_A), 0, 'nothing counted against the caps')
})

t.test('heartbeats reach idle streams and re-check their callers: a deactivated user is disconnected', async (t) => {
  const built = await worldWithFeed(t)
  const { as, base, ddId, resources, feed } = built
  const member = await open(base, ddId, as.member)
  const admin = await open(base, ddId, as.admin)
  feed.heartbeat()
  await Promise.all([member.nextComments(1), admin.nextComments(1)])
  t.equal(member.events.length + admin.events.length, 0, 'a heartbeat is a comment, no event')

  const token = as.member.authorization?.slice('Bearer '.length) ?? ''
  const userId = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sub: string }
  await IDENTITY_COLLECTIONS.users
    .in(resources.store)
    .updateOne({ _id: userId.sub }, { $set: { [`profile.environments.${ENV_A}.active`]: false } })
  feed.heartbeat()
  t.same(await member.end(), [], 'the deactivated member is disconnected with no change written')
  await admin.nextComments(2)
  t.notOk(admin.ended, 'the administrator stays subscribed')
  t.equal(feed.open(ENV_A), 1)
  admin.close()
})
