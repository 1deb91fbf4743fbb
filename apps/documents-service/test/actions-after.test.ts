/* eslint-disable no-template-curly-in-string -- the scripts under test are JavaScript text with template literals */
import t from 'tap'
import type { Collection, RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS } from '../src/collections.js'
import { build, createDefinition, createDocument, DEFINITIONS, documentsOf, getDocument } from './helper.js'
import { actionRuns, eventually } from './actions-helper.js'

/** An after-write action that records what it saw into the `log` definition, through REST.call, as its writer. */
const LOGGER = [
  'const entry = await REST.call("api/v2/document-definitions/log/documents/new", "POST", {}, {',
  '  about: serverDocument._id, trigger: context.actionType, title: serverDocument.title ?? null,',
  '  previousTitle: context.previous?.title ?? null,',
  '})',
  'if (REST.lastStatus !== 201) throw new Error(`log entry not written: ${REST.lastStatus}`)',
  'return entry.data._id',
].join('\n')

const jobsIn = (store: RecordStore) => DOCUMENTS_COLLECTIONS.actionJobs.in(store)

t.test('after-write actions run once per committed write, after the answer, as the writer', async (t) => {
  const { server, as, resources } = await build(t)
  await createDefinition(server, as.admin, { name: 'log' })
  await createDefinition(server, as.admin, {
    name: 'tasks',
    fields: { title: { type: 'string', required: true } },
    actions: [{ name: 'audit', triggers: ['afterCreate', 'afterUpdate', 'afterDelete'], source: LOGGER }],
  })
  const logged = async () =>
    (await server.inject({ method: 'GET', url: `${documentsOf('log')}?sort={"_id":1}`, headers: as.admin })).json()
      .data as {
      about: string
      trigger: string
      title: string | null
      previousTitle: string | null
      _createdByUserId: string
    }[]

  const first = await createDocument(server, as.member, 'tasks', { title: 'first' })
  const refused = await server.inject({
    method: 'POST',
    url: `${documentsOf('tasks')}/new`,
    headers: as.member,
    payload: {},
  })
  t.equal(refused.statusCode, 400, 'a failed write (no title)')
  const bulk = await server.inject({
    method: 'POST',
    url: `${documentsOf('tasks')}/bulk`,
    headers: as.member,
    payload: {
      operations: [
        { op: 'create', body: { title: 'second' } },
        { op: 'patch', id: first._id, body: { title: 'first, renamed' } },
      ],
    },
  })
  t.equal(bulk.statusCode, 200)
  const second = bulk.json().data[0]._id as string
  const failedBulk = await server.inject({
    method: 'POST',
    url: `${documentsOf('tasks')}/bulk`,
    headers: as.member,
    payload: {
      operations: [
        { op: 'create', body: { title: 'never' } },
        { op: 'create', body: {} },
      ],
    },
  })
  t.equal(failedBulk.statusCode, 400, 'a bulk call that fails queues nothing')
  const removed = await server.inject({
    method: 'DELETE',
    url: `${documentsOf('tasks')}/${second}`,
    headers: as.member,
  })
  t.equal(removed.statusCode, 200)

  const entries = await eventually(async () => {
    const runs = await actionRuns(server, as.admin, 'tasks')
    return runs.length >= 4 && (await logged()).length >= 4 ? logged() : undefined
  }, 'four after-write runs')
  const seen = entries.map(({ about, trigger, title, previousTitle }) => ({ about, trigger, title, previousTitle }))
  t.same(
    seen.sort((a, b) => `${a.about}${a.trigger}`.localeCompare(`${b.about}${b.trigger}`)),
    [
      { about: first._id, trigger: 'afterCreate', title: 'first', previousTitle: null },
      { about: first._id, trigger: 'afterUpdate', title: 'first, renamed', previousTitle: 'first' },
      { about: second, trigger: 'afterCreate', title: 'second', previousTitle: null },
      { about: second, trigger: 'afterDelete', title: 'second', previousTitle: 'second' },
    ].sort((a, b) => `${a.about}${a.trigger}`.localeCompare(`${b.about}${b.trigger}`)),
  )
  t.ok(
    entries.every((entry) => entry._createdByUserId === first._createdByUserId),
    'written as the member',
  )
  const runs = await actionRuns(server, as.admin, 'tasks')
  t.equal(runs.length, 4, 'once per committed write: none for the failed ones')
  t.ok(runs.every((run) => run.status === 'succeeded' && run.attempt === 1 && run.userId === first._createdByUserId))
  t.equal(await jobsIn(resources.store).count({}), 0, 'no job is left')
})

t.test('a job left by a closed app runs in the next one on the same store', async (t) => {
  const first = await build(t)
  const { store } = first.resources
  await createDefinition(first.server, first.as.admin, { name: 'log' })
  await createDefinition(first.server, first.as.admin, {
    name: 'tasks',
    actions: [{ name: 'audit', triggers: ['afterCreate'], source: LOGGER }],
  })
  // This app's dispatcher finds nothing due: as if it had stopped right after the write committed.
  const open = store.collection.bind(store)
  store.collection = ((name: string) => {
    const collection = open(name)
    if (name !== DOCUMENTS_COLLECTIONS.actionJobs.name) return collection
    return new Proxy(collection, {
      get: (target, property) =>
        property === 'find' ? async () => [] : (Reflect.get(target, property, target) as unknown),
    }) as Collection
  }) as RecordStore['collection']
  const document = await createDocument(first.server, first.as.member, 'tasks', { title: 'survives' })
  const [job] = await open(DOCUMENTS_COLLECTIONS.actionJobs.name).find({})
  t.match(job, { documentId: document._id, action: 'audit', trigger: 'afterCreate', attempt: 0, depth: 1 })
  await first.server.close()
  store.collection = open

  const second = await build(t, { resources: first.resources })
  const entries = await eventually(async () => {
    const response = await second.server.inject({ method: 'GET', url: documentsOf('log'), headers: second.as.admin })
    const data = response.json().data as { about: string }[]
    return data.length > 0 ? data : undefined
  }, 'the job of the closed app ran')
  t.match(entries, [{ about: document._id }])
  await eventually(async () => (await jobsIn(store).count({})) === 0, 'the job is done')
})

t.test(
  'a failing after-write action is retried, each attempt recorded; deleting the definition drops its jobs and runs',
  async (t) => {
    const { server, as, resources } = await build(t)
    const definition = await createDefinition(server, as.admin, {
      name: 'fragile',
      actions: [
        { name: 'fails', triggers: ['afterCreate'], source: 'console.warn("trying")\nthrow new Error("not today")' },
      ],
    })
    const document = await createDocument(server, as.member, 'fragile')
    const runs = await eventually(async () => {
      const found = await actionRuns(server, as.admin, 'fragile')
      return found.length >= 2 ? found : undefined
    }, 'a second attempt')
    t.match(runs.slice(-2), [
      { documentId: document._id, status: 'failed', attempt: 2, error: { kind: 'exception', message: /not today/ } },
      { documentId: document._id, status: 'failed', attempt: 1, logs: [{ level: 'warn', message: 'trying' }] },
    ])
    t.equal(
      await jobsIn(resources.store).count({ definitionId: definition._id }),
      1,
      'still queued for its next attempt',
    )

    const filtered = await actionRuns(
      server,
      as.admin,
      'fragile',
      `&status=failed&action=fails&documentId=${document._id}`,
    )
    t.ok(filtered.length >= 2)
    t.same(await actionRuns(server, as.admin, 'fragile', '&status=succeeded'), [])
    const page = await server.inject({
      method: 'GET',
      url: `${DEFINITIONS}/fragile/action-runs?limit=1`,
      headers: as.admin,
    })
    t.equal(page.json().data.length, 1)
    t.equal(page.json().pagination.hasNext, true)
    const next = await server.inject({
      method: 'GET',
      url: `${DEFINITIONS}/fragile/action-runs?${page.json().pagination.next}`,
      headers: as.admin,
    })
    t.equal(next.json().data.length, 1)
    t.ok(next.json().data[0]._id < page.json().data[0]._id, 'newest first')

    const removed = await server.inject({
      method: 'DELETE',
      url: `${DEFINITIONS}/fragile?force=true`,
      headers: as.admin,
    })
    t.equal(removed.statusCode, 200)
    t.equal(await jobsIn(resources.store).count({ definitionId: definition._id }), 0, 'its jobs are gone')
    t.equal(await DOCUMENTS_COLLECTIONS.actionRuns.in(resources.store).count({ definitionId: definition._id }), 0)
  },
)

t.test('an action that writes its own document stops at the depth bound', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'counters',
    actions: [
      {
        name: 'bump',
        triggers: ['afterUpdate'],
        source: [
          'const path = `api/v2/document-definitions/${context.ddId}/documents/${serverDocument._id}`',
          'const answer = await REST.call(path, "PATCH", {}, { n: serverDocument.n + 1 })',
          'console.log(String(REST.lastStatus), answer.error ?? "")',
        ].join('\n'),
      },
    ],
  })
  const counter = await createDocument(server, as.member, 'counters', { n: 0 })
  const patched = await server.inject({
    method: 'PATCH',
    url: `${documentsOf('counters')}/${counter._id}`,
    headers: as.member,
    payload: { n: 0 },
  })
  t.equal(patched.statusCode, 200)
  const runs = await eventually(async () => {
    const found = await actionRuns(server, as.admin, 'counters')
    return found.length >= 3 ? found : undefined
  }, 'three nested runs')
  t.same(runs.map((run) => run.logs[0]?.message).sort(), ['200 ', '200 ', '409 action_depth_exceeded'])
  t.equal((await getDocument(server, as.admin, 'counters', counter._id)).n, 2, 'the third write was refused')
})

t.test('runs past their retention are swept (at start, then hourly)', async (t) => {
  const first = await build(t)
  const runs = DOCUMENTS_COLLECTIONS.actionRuns.in(first.resources.store)
  const run = {
    environmentId: 'env_a',
    definitionId: 'd1',
    documentId: 'x',
    action: 'a',
    trigger: 'manual' as const,
    status: 'succeeded' as const,
    logs: [],
    durationMs: 1,
    attempt: 1,
    userId: 'u',
    createdOn: new Date(Date.now() - 8 * 86_400_000).toISOString(),
  }
  await runs.insertOne({
    ...run,
    _id: '000000000000000000000001',
    expiresOn: new Date(Date.now() - 1000).toISOString(),
  })
  await runs.insertOne({
    ...run,
    _id: '000000000000000000000002',
    expiresOn: new Date(Date.now() + 60_000).toISOString(),
  })
  await first.server.close()
  await build(t, { resources: first.resources })
  await eventually(async () => (await runs.count({})) === 1, 'the expired run is swept')
  t.same(
    (await runs.find({})).map((each) => each._id),
    ['000000000000000000000002'],
  )
})
