// The subscription's own rules against a bare SSE server (the real stream is tested end to end in
// packages/client-e2e): what a browser needs of it, reading with a stream reader, resuming with Last-Event-ID,
// asking its fetch again at each connection, and stopping at once.
import t from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createQuireClient, SubscriptionRefused, type Change } from '../src/index.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** A server answering its n-th request with `handlers[n]`; the requests it saw, in order. */
async function serve(t: { teardown(fn: () => void): void }, handlers: Handler[]) {
  const requests: IncomingMessage[] = []
  const server = createServer((request, response) => {
    requests.push(request)
    const handler = handlers[requests.length - 1]
    if (handler) handler(request, response)
    else response.writeHead(200, { 'content-type': 'text/event-stream' }).write(': idle\n\n')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

const stream = (response: ServerResponse, text: string) =>
  response.writeHead(200, { 'content-type': 'text/event-stream' }).end(text)

const created = (id: string, _id: string) =>
  `id: ${id}\nevent: create\ndata: ${JSON.stringify({ _id, operation: 'create', document: { _id } })}\n\n`

/** Resolves with the changes once `count` have come. */
function collector(count: number) {
  const changes: Change[] = []
  let wake: (changes: Change[]) => void = () => undefined
  const enough = new Promise<Change[]>((resolve) => (wake = resolve))
  return {
    enough,
    onEvent: (change: Change) => {
      changes.push(change)
      if (changes.length === count) wake(changes)
    },
  }
}

t.test('changes come in order; a reconnection resumes after the last with a fresh fetch', async (t) => {
  const { baseUrl, requests } = await serve(t, [
    // `retry: 0`: reconnect at once, as the server may say.
    (_, response) => stream(response, `retry: 0\n\n${created('e1', 'a')}: heartbeat\n\n${created('e2', 'b')}`),
    (_, response) => stream(response, `event: delete\nid: e3\ndata: {"_id":"a","operation":"delete"}\n\n`),
  ])
  let calls = 0
  // The console's fetch: it adds the token current at each call, so a renewed session is used on reconnection.
  const fetch = (request: Request) => {
    calls++
    request.headers.set('authorization', `Bearer token-${calls}`)
    return globalThis.fetch(request)
  }
  const { enough, onEvent } = collector(3)
  let opened = 0
  const subscription = createQuireClient({ baseUrl, fetch }).subscribe(
    'tasks',
    { query: { done: false }, onOpen: () => opened++ },
    onEvent,
  )
  const changes = await enough
  subscription.close()
  await subscription.done

  t.same(
    changes.map(({ id, operation, _id }) => [id, operation, _id]),
    [
      ['e1', 'create', 'a'],
      ['e2', 'create', 'b'],
      ['e3', 'delete', 'a'],
    ],
  )
  t.equal(subscription.lastEventId, 'e3')
  t.equal(requests[0]?.url, '/api/v2/document-definitions/tasks/documents/changes?query=%7B%22done%22%3Afalse%7D')
  t.equal(requests[0]?.headers.accept, 'text/event-stream')
  t.equal(requests[0]?.headers['last-event-id'], undefined, 'the first connection starts from now')
  t.equal(requests[1]?.headers['last-event-id'], 'e2', 'the second resumes after the last change handled')
  t.same(
    requests.slice(0, 2).map((request) => request.headers.authorization),
    ['Bearer token-1', 'Bearer token-2'],
    'each connection asks the fetch again',
  )
  t.equal(opened, 2, 'onOpen is told of each connection')
})

t.test('close ends the pause before a reconnection at once', async (t) => {
  const { baseUrl } = await serve(t, [(_, response) => stream(response, `retry: 3600000\n\n${created('e1', 'a')}`)])
  const { enough, onEvent } = collector(1)
  const subscription = createQuireClient({ baseUrl }).subscribe('tasks', {}, onEvent)
  await enough
  subscription.close()
  // With an hour's `retry`, only close ending the pause lets `done` settle within the test's timeout.
  await subscription.done
  t.equal(subscription.lastEventId, 'e1')
})

t.test('a refusal ends the subscription with its status and body', async (t) => {
  const { baseUrl } = await serve(t, [
    (_, response) =>
      response
        .writeHead(410, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'error', error: 'resume_token_expired' })),
  ])
  const subscription = createQuireClient({ baseUrl }).subscribe('tasks', { lastEventId: 'old' }, () => undefined)
  const error = await subscription.done.then(
    () => null,
    (error: unknown) => error,
  )
  t.ok(error instanceof SubscriptionRefused)
  t.equal((error as SubscriptionRefused).status, 410)
  t.same((error as SubscriptionRefused).body, { status: 'error', error: 'resume_token_expired' })
})
