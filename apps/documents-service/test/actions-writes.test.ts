/* eslint-disable no-template-curly-in-string -- the scripts under test are JavaScript text with template literals */
import { once } from 'node:events'
import t from 'tap'
import { build, createDefinition, createDocument, DEFINITIONS, documentsOf, getDocument } from './helper.js'
import { actionRuns, eventually, runAction } from './actions-helper.js'

/** docs/API.md's example: an order's total must be positive; anyone who sees an order may discount it. */
const CHECK_TOTAL = {
  name: 'checkTotal',
  triggers: ['beforeCreate', 'beforeUpdate'],
  source:
    "if (!(serverDocument.total > 0)) refuse('An order needs a positive total', 'empty_order')\nreturn { ...serverDocument, reference: serverDocument.reference ?? `ORD-${serverDocument._id.slice(-6)}` }",
}
const DISCOUNT = {
  name: 'discount',
  triggers: ['manual'],
  source:
    "const percent = context.input?.percent ?? 10\nconst total = Math.round(serverDocument.total * (100 - percent)) / 100\nconst path = `api/v2/document-definitions/${context.ddId}/documents/${serverDocument._id}`\nawait REST.call(path, 'PATCH', {}, { total })\nif (REST.lastStatus !== 200) refuse('The order could not be changed')\nreturn { total }",
}

/** Ends the held runs; long enough for a run that must succeed (the retry) on a busy machine. */
const WALL_MS = 5_000

t.test('a write still pending when its run ends (wall) never lands; a retry applies once', async (t) => {
  let holding = true
  let held = false
  let orderPath = ''
  const { server, as } = await build(t, {
    config: { QUIRE_SCRIPT_WALL_MS: WALL_MS },
    prepare: (server) => {
      // The discount's PATCH is held until the run that sent it has ended: the parent times out meanwhile.
      server.addHook('preHandler', async (request) => {
        if (!holding || request.method !== 'PATCH' || request.url !== orderPath) return
        const signal = request.scope.signal
        if (!signal) return
        held = true
        if (!signal.aborted) await once(signal, 'abort')
      })
    },
  })
  const orders = await createDefinition(server, as.admin, {
    name: 'orders',
    fields: { total: { type: 'number', required: true } },
    actions: [CHECK_TOTAL, DISCOUNT],
  })
  const order = await createDocument(server, as.member, 'orders', { total: 120 })
  // The script writes to its definition by id (`context.ddId`).
  orderPath = `${documentsOf(orders._id)}/${order._id}`

  const timedOut = await runAction(server, as.member, 'orders', order._id, 'discount')
  t.ok(held, 'its PATCH was held until the run had ended')
  t.equal(timedOut.statusCode, 422)
  t.match(timedOut.json().description, /^Action "discount" failed \(wall\)/)
  t.equal((await getDocument(server, as.member, 'orders', order._id)).total, 120, 'its PATCH never landed')
  const [failed] = await actionRuns(server, as.admin, 'orders', '&action=discount')
  t.match(failed, { status: 'failed', error: { kind: 'wall' }, writes: [] }, 'its record lists no write')

  holding = false
  const retried = await runAction(server, as.member, 'orders', order._id, 'discount')
  t.equal(retried.statusCode, 200)
  t.same(retried.json().data.result, { total: 108 })
  t.equal((await getDocument(server, as.member, 'orders', order._id)).total, 108, 'discounted once')
  const [succeeded] = await actionRuns(server, as.admin, 'orders', '&action=discount')
  t.same(succeeded!.writes, [{ method: 'PATCH', path: orderPath, status: 200 }])
})

t.test('a definition write still pending when its run ends never lands', async (t) => {
  let held = false
  const { server, as } = await build(t, {
    config: { QUIRE_SCRIPT_WALL_MS: WALL_MS },
    prepare: (server) => {
      server.addHook('preHandler', async (request) => {
        if (request.method !== 'POST' || request.url !== DEFINITIONS) return
        const signal = request.scope.signal
        if (!signal) return
        held = true
        if (!signal.aborted) await once(signal, 'abort')
      })
    },
  })
  await createDefinition(server, as.admin, {
    name: 'source',
    actions: [
      {
        name: 'copy',
        triggers: ['manual'],
        source: 'await REST.call("api/v2/document-definitions", "POST", {}, { name: "copied" })',
      },
    ],
  })
  const document = await createDocument(server, as.admin, 'source')
  const timedOut = await runAction(server, as.admin, 'source', document._id, 'copy')
  t.ok(held, 'its POST was held until the run had ended')
  t.equal(timedOut.statusCode, 422)
  t.match(timedOut.json().description, /failed \(wall\)/)
  const copied = await server.inject({ method: 'GET', url: `${DEFINITIONS}/copied`, headers: as.admin })
  t.equal(copied.statusCode, 404, 'no definition was created')
})

t.test("a run's record lists the writes that committed: not a refused write, not a read", async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'notes' })
  await createDefinition(server, as.admin, {
    name: 'tasks',
    actions: [
      {
        name: 'write',
        triggers: ['manual'],
        source: [
          'await REST.call("api/v2/document-definitions/notes/documents/new", "POST", {}, { n: 1 })',
          'await REST.call("api/v2/document-definitions/notes/documents/new", "POST", {}, {})',
          'await REST.call("api/v2/document-definitions/notes/documents/none", "PATCH", {}, { n: 2 })',
          'await REST.call("api/v2/document-definitions/notes/documents")',
        ].join('\n'),
      },
    ],
  })
  const task = await createDocument(server, as.member, 'tasks')
  t.equal((await runAction(server, as.member, 'tasks', task._id, 'write')).statusCode, 200)
  const [run] = await actionRuns(server, as.admin, 'tasks')
  const created = `${documentsOf('notes')}/new`
  t.same(
    run!.writes,
    [
      { method: 'POST', path: created, status: 201 },
      { method: 'POST', path: created, status: 201 },
    ],
    'the two creates; not the failed PATCH (404), not the read',
  )
})

t.test('a before-write action may only read: a failed bulk writes nothing', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, { name: 'ledger' })
  const entry = await createDocument(server, as.member, 'ledger', { count: 0 })
  const entryPath = `api/v2/document-definitions/ledger/documents/${entry._id}`
  await createDefinition(server, as.admin, {
    name: 'items',
    actions: [
      {
        name: 'tally',
        triggers: ['beforeCreate'],
        source: [
          `const read = await REST.call("${entryPath}")`,
          'console.log("read", REST.lastStatus, read.count)',
          `try { await REST.call("${entryPath}", "PATCH", {}, { count: read.count + 1 }) }`,
          'catch (error) { console.log(String(error)) }',
        ].join('\n'),
      },
      {
        name: 'strict',
        triggers: ['beforeUpdate'],
        source: `await REST.call("${entryPath}", "DELETE")`,
      },
    ],
  })
  const bulk = await server.inject({
    method: 'POST',
    url: `${documentsOf('items')}/bulk`,
    headers: as.member,
    payload: {
      operations: [
        { op: 'create', body: { title: 'first' } },
        { op: 'create', body: { title: 'second' } },
        { op: 'patch', id: '6b0507240000000000000000', body: { title: 'missing' } },
      ],
    },
  })
  t.equal(bulk.statusCode, 404, 'the third operation fails')
  t.equal((await getDocument(server, as.member, 'ledger', entry._id)).count, 0, 'the scripts wrote nothing')
  const list = await server.inject({ method: 'GET', url: documentsOf('items'), headers: as.member })
  t.same(list.json().data, [], 'nor did the bulk')
  const runs = await actionRuns(server, as.admin, 'items', '&action=tally')
  t.equal(runs.length, 2)
  for (const run of runs) {
    t.same(run.writes, [])
    t.match(run.logs.at(-1)!.message, 'REST.call in a beforeCreate action may only read (GET or HEAD), not PATCH')
  }

  // Uncaught, the refusal fails the action and its write.
  const item = await createDocument(server, as.member, 'items', { title: 'kept' })
  const patch = await server.inject({
    method: 'PATCH',
    url: `${documentsOf('items')}/${item._id}`,
    headers: as.member,
    payload: { title: 'changed' },
  })
  t.equal(patch.statusCode, 422)
  t.match(patch.json().description, 'REST.call in a beforeUpdate action may only read (GET or HEAD), not DELETE')
  t.equal((await getDocument(server, as.member, 'ledger', entry._id))._id, entry._id, 'not deleted')
})

t.test("an after-write job runs the source of its write's time, not one saved since", async (t) => {
  const { server, as } = await build(t)
  const source = (version: string) => `console.log("${version}")\nthrow new Error("${version} fails")`
  await createDefinition(server, as.admin, {
    name: 'jobs',
    actions: [{ name: 'after', triggers: ['afterCreate'], source: source('v1') }],
  })
  const document = await createDocument(server, as.member, 'jobs')
  const [first] = await eventually(async () => {
    const runs = await actionRuns(server, as.admin, 'jobs')
    return runs.length > 0 && runs
  }, 'the first attempt')
  t.match(first, { attempt: 1, status: 'failed', logs: [{ message: 'v1' }] })

  // The administrator swaps the code before the retry.
  const swapped = await server.inject({
    method: 'PATCH',
    url: `${DEFINITIONS}/jobs`,
    headers: as.admin,
    payload: { actions: [{ name: 'after', triggers: ['afterCreate'], source: source('v2') }] },
  })
  t.equal(swapped.statusCode, 200)
  const [retry] = await eventually(async () => {
    const runs = await actionRuns(server, as.admin, 'jobs', `&documentId=${document._id}`)
    return runs.length > 1 && runs
  }, 'the retry')
  t.match(retry, { attempt: 2, logs: [{ message: 'v1' }] }, 'the retry ran the source of the write')

  const next = await createDocument(server, as.member, 'jobs')
  const [later] = await eventually(async () => {
    const runs = await actionRuns(server, as.admin, 'jobs', `&documentId=${next._id}`)
    return runs.length > 0 && runs
  }, 'the next write')
  t.match(later, { attempt: 1, logs: [{ message: 'v2' }] }, 'a write made since runs the new source')
})

t.test('the documented discount, clicked 8 times at once on 8 orders: every run succeeds (no deadlock)', async (t) => {
  // More clicks than an environment's run slots (4): each parent waits on a PATCH whose before-write action
  // needs a slot one level deeper.
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'orders',
    fields: { total: { type: 'number', required: true } },
    actions: [CHECK_TOTAL, DISCOUNT],
  })
  const orders = await Promise.all(
    Array.from({ length: 8 }, () => createDocument(server, as.member, 'orders', { total: 120 })),
  )
  const clicks = await Promise.all(orders.map((order) => runAction(server, as.member, 'orders', order._id, 'discount')))
  t.same(
    clicks.map((click) => click.statusCode),
    orders.map(() => 200),
  )
  for (const order of orders) t.equal((await getDocument(server, as.member, 'orders', order._id)).total, 108)
})
