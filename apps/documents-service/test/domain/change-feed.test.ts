import t from 'tap'
import type { Scope } from '@quire/auth'
import type { AccessGroup } from '@quire/contracts'
import type { ChangeRecord, DocumentRecord } from '../../src/collections.js'
import { createChangeFeed, type FeedSink } from '../../src/domain/change-feed.js'
import { localCounts } from '@quire/service-kit'

const ENV = 'env_a'
const DEFINITION = { _id: 'tasks', _environmentId: ENV }
const AT = '2026-01-01T00:00:00.000Z'
const quiet = { warn: () => undefined, error: () => undefined }

const scopeOf = (userId: string, role: { administrator?: boolean; groups?: string[] } = {}): Scope => ({
  userId,
  via: 'access-token',
  superAdministrator: false,
  actionDepth: 0,
  environmentId: ENV,
  administrator: role.administrator ?? false,
  groups: role.groups ?? [],
})

const documentOf = (n: number, accessGroups: AccessGroup[] = []): DocumentRecord => ({
  _id: `doc${n}`,
  _hash: `h${n}`,
  _createdOn: AT,
  _createdByUserId: 'admin',
  _lastModifiedOn: AT,
  _lastModifiedByUserId: 'admin',
  _documentDefinitionId: DEFINITION._id,
  _environmentId: ENV,
  status: 'active',
  accessGroups,
  n,
})

/** A log in memory: entries appended in order, numbered from 1, as the store numbers them. */
function memoryLog() {
  const entries: ChangeRecord[] = []
  let reads = 0
  const readers: (() => void)[] = []
  return {
    entries,
    reads: () => reads,
    /** Resolves once the feed read the log again. */
    read: () => new Promise<void>((resolve) => readers.push(resolve)),
    append(document: DocumentRecord, operation: ChangeRecord['operation'] = 'create') {
      entries.push({
        _id: `c${entries.length + 1}`,
        seq: entries.length + 1,
        environmentId: ENV,
        definitionId: DEFINITION._id,
        target: 'document',
        operation,
        at: AT,
        document,
      })
    },
    log: {
      read: async (_environmentId: string, after: number, limit: number) => {
        reads++
        for (const resolve of readers.splice(0)) setImmediate(resolve)
        return entries.filter((entry) => entry.seq > after).slice(0, limit)
      },
      latest: async () => entries.length,
      oldest: async () => entries[0]?.seq,
    },
  }
}

interface Event {
  event: string
  data: { _id: string; operation: string; document?: { n?: number; _permissions?: unknown } }
}

/** A sink that keeps each write as the socket would send it. */
function recordingSink() {
  const writes: string[] = []
  let waiter: (() => void) | undefined
  const sink: FeedSink = {
    write(text) {
      writes.push(text)
      waiter?.()
      return true
    },
    drained: async () => undefined,
    end: () => undefined,
  }
  const events = (): Event[] =>
    writes
      .join('')
      .split('\n\n')
      .filter((block) => block.includes('event: '))
      .map((block) => {
        const field = (name: string) => block.split('\n').find((line) => line.startsWith(`${name}: `))
        return {
          event: field('event')?.slice('event: '.length) ?? '',
          data: JSON.parse(field('data')?.slice('data: '.length) ?? 'null') as Event['data'],
        }
      })
  /** Resolves once `count` events were written. */
  const next = async (count: number): Promise<Event[]> => {
    while (events().length < count) await new Promise<void>((resolve) => (waiter = resolve))
    return events()
  }
  return { sink, writes, events, next }
}

function feedOf(log: ReturnType<typeof memoryLog>['log'], recheckMs = 60_000) {
  return createChangeFeed({
    log,
    clock: Date.now,
    logger: quiet,
    counts: localCounts(),
    limits: { perUser: 100, perEnvironment: 1000, buffer: 4, recheckMs, workQueueLimit: 100 },
  })
}

async function subscribed(feed: ReturnType<typeof feedOf>, scope: Scope) {
  const recording = recordingSink()
  await feed.subscribe({
    scope,
    definition: DEFINITION,
    filter: {},
    projection: {},
    sink: recording.sink,
    recheck: async () => scope,
  })
  return recording
}

t.test('a write is answered before the feed reads the log; the events follow', async (t) => {
  const memory = memoryLog()
  const feed = feedOf(memory.log)
  t.teardown(() => feed.close())
  const reader = await subscribed(feed, scopeOf('admin', { administrator: true }))
  memory.append(documentOf(1))
  feed.notify(ENV)
  t.equal(memory.reads(), 0, 'notify returns without reading the log: the fan-out is not part of the write')
  t.same(
    (await reader.next(1)).map(({ data }) => data.document?.n),
    [1],
  )
})

t.test('events waiting for a subscriber go out in one write, in order', async (t) => {
  const memory = memoryLog()
  const feed = feedOf(memory.log)
  t.teardown(() => feed.close())
  const reader = await subscribed(feed, scopeOf('admin', { administrator: true }))
  for (let n = 1; n <= 3; n++) {
    memory.append(documentOf(n))
    feed.notify(ENV)
  }
  t.same(
    (await reader.next(3)).map(({ data }) => data.document?.n),
    [1, 2, 3],
  )
  t.equal(reader.writes.length, 1, 'three events, one write to the socket')
})

t.test('subscribers sharing a view and subscribers with other rights each get their own _permissions', async (t) => {
  const memory = memoryLog()
  const feed = feedOf(memory.log)
  t.teardown(() => feed.close())
  const admins = [
    await subscribed(feed, scopeOf('a1', { administrator: true })),
    await subscribed(feed, scopeOf('a2', { administrator: true })),
  ]
  const named = await subscribed(feed, scopeOf('m1'))
  // Same groups (none), another user: an access-group object naming m1 is not m2's to see.
  const other = await subscribed(feed, scopeOf('m2'))
  memory.append(documentOf(1))
  memory.append(documentOf(2, [{ _id: 'team', memberUserIds: ['m1'] }]))
  feed.notify(ENV)

  const administrator = {
    fullPermissions: true,
    userActionPermissions: ['read', 'create', 'update', 'delete', 'changeAccessGroups'],
  }
  const owner = {
    fullPermissions: false,
    userActionPermissions: ['read', 'create', 'update', 'delete', 'changeAccessGroups'],
  }
  for (const reader of admins) {
    t.same(
      (await reader.next(2)).map(({ data }) => [data.document?.n, data.document?._permissions]),
      [
        [1, administrator],
        [2, administrator],
      ],
    )
  }
  t.same(
    (await named.next(2)).map(({ data }) => [data.document?.n, data.document?._permissions]),
    [
      [1, owner],
      [2, owner],
    ],
    'the member the access group names sees document 2',
  )
  // Every subscriber's write follows the same read of the log: m2's is there once m1's is.
  t.same(
    (await other.next(1)).map(({ data }) => data.document?.n),
    [1],
  )
  t.same(
    other.events().map(({ data }) => data.document?.n),
    [1],
    'a member of the same groups, not named, never receives document 2',
  )
})

t.test('access taken away before delivery: what waits is rendered again for the caller as it now is', async (t) => {
  const memory = memoryLog()
  // Each delivery checks the caller first, after the events were rendered for it.
  const feed = feedOf(memory.log, 0)
  t.teardown(() => feed.close())
  let scope = scopeOf('s1', { groups: ['sales'] })
  const recording = recordingSink()
  await feed.subscribe({
    scope,
    definition: DEFINITION,
    filter: {},
    projection: {},
    sink: recording.sink,
    recheck: async () => scope,
  })
  memory.append(documentOf(1, ['sales']))
  memory.append(documentOf(2))
  // The caller left `sales` after subscribing: the check before delivery finds it.
  scope = scopeOf('s1')
  feed.notify(ENV)
  t.same(
    (await recording.next(1)).map(({ data }) => data.document?.n),
    [2],
  )
  t.same(
    recording.events().map(({ data }) => data.document?.n),
    [2],
    'the document of sales is not sent',
  )
})

t.test('a reader behind by more than its buffer gets a final resume event, then its stream ends', async (t) => {
  const memory = memoryLog()
  const feed = feedOf(memory.log)
  t.teardown(() => feed.close())
  const writes: string[] = []
  const stream = { ended: false }
  await feed.subscribe({
    scope: scopeOf('admin', { administrator: true }),
    definition: DEFINITION,
    filter: {},
    projection: {},
    sink: {
      write: (text) => {
        writes.push(text)
        return false
      },
      // The reader never catches up.
      drained: () => new Promise<void>(() => undefined),
      end: () => (stream.ended = true),
    },
    recheck: async () => scopeOf('admin', { administrator: true }),
  })
  for (let n = 1; !stream.ended && n <= 100; n++) {
    memory.append(documentOf(n))
    const read = memory.read()
    feed.notify(ENV)
    await read
  }
  t.ok(stream.ended, 'the stream ended')
  t.match(writes.at(-1), /^event: resume\n/, 'its last event says to resume')
  t.equal(feed.open(ENV), 0, 'the subscription is gone')
})
