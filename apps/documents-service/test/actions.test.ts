/* eslint-disable no-template-curly-in-string -- the scripts under test are JavaScript text with template literals */
import t from 'tap'
import {
  build,
  createDefinition,
  createDocument,
  DEFINITIONS,
  documentsOf,
  ENV_A,
  getDocument,
  storedDocuments,
} from './helper.js'
import { actionRuns, runAction } from './actions-helper.js'

t.test(
  'declaring actions: validated, compiled, sources for administrators only, copied with the definition',
  async (t) => {
    const { server, as } = await build(t)
    const post = (body: Record<string, unknown>) =>
      server.inject({ method: 'POST', url: DEFINITIONS, headers: as.admin, payload: body })
    const manual = { name: 'hello', triggers: ['manual'], source: 'return 1' }

    const invalid = [
      [{ ...manual, name: '1st' }, 'body/actions/0/name'],
      [{ ...manual, triggers: [] }, 'body/actions/0/triggers'],
      [{ ...manual, triggers: ['manual', 'manual'] }, 'body/actions/0/triggers'],
      [{ ...manual, triggers: ['onSave'] }, 'body/actions/0/triggers/0'],
      [{ ...manual, source: 'x'.repeat(64 * 1024 + 1) }, 'body/actions/0/source'],
    ] as const
    for (const [action, path] of invalid) {
      const response = await post({ name: 'invalid', actions: [action] })
      t.equal(response.statusCode, 400, path)
      t.equal(response.json().error, 'validation_error')
      t.match(response.json().description, path)
    }
    const twice = await post({ name: 'twice', actions: [manual, { ...manual, triggers: ['afterCreate'] }] })
    t.equal(twice.statusCode, 400)
    t.match(twice.json().description, /^body\/actions\/1\/name "hello" is declared twice/)
    const tooMany = await post({
      name: 'many',
      actions: Array.from({ length: 33 }, (_, i) => ({ ...manual, name: `a${i}` })),
    })
    t.equal(tooMany.statusCode, 400)

    const syntax = await post({
      name: 'syntax',
      actions: [manual, { name: 'broken', triggers: ['beforeCreate'], source: 'const a = 1\nconst b = ;\nreturn a' }],
    })
    t.equal(syntax.statusCode, 400)
    t.equal(syntax.json().error, 'validation_error')
    t.match(syntax.json().description, /^body\/actions\/1\/source \(line 2\): SyntaxError/)
    const none = await server.inject({ method: 'GET', url: `${DEFINITIONS}/syntax`, headers: as.admin })
    t.equal(none.statusCode, 404, 'nothing is created for a definition whose script does not compile')

    const definition = await createDefinition(server, as.admin, {
      name: 'orders',
      actions: [{ ...manual, description: 'Says hello' }],
    })
    const asAdmin = await server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: as.admin })
    t.same(asAdmin.json().data.actions, [{ ...manual, description: 'Says hello' }])
    const asMember = await server.inject({ method: 'GET', url: `${DEFINITIONS}/orders`, headers: as.member })
    t.same(asMember.json().data.actions, [{ name: 'hello', triggers: ['manual'], description: 'Says hello' }])
    const listed = await server.inject({ method: 'GET', url: DEFINITIONS, headers: as.member })
    t.notOk(JSON.stringify(listed.json()).includes('return 1'), 'no source in a member list either')

    const copy = await server.inject({ method: 'POST', url: `${DEFINITIONS}?sourceId=orders`, headers: as.admin })
    t.equal(copy.statusCode, 201)
    t.same(copy.json().data.actions, [{ ...manual, description: 'Says hello' }], 'a copy copies actions')

    const patchBroken = await server.inject({
      method: 'PATCH',
      url: `${DEFINITIONS}/${definition._id}`,
      headers: as.admin,
      payload: { actions: [{ ...manual, source: 'return (' }] },
    })
    t.equal(patchBroken.statusCode, 400)
    t.match(patchBroken.json().description, /^body\/actions\/0\/source/)
    const removed = await server.inject({
      method: 'PATCH',
      url: `${DEFINITIONS}/${definition._id}`,
      headers: as.admin,
      payload: { actions: null },
    })
    t.equal(removed.statusCode, 200)
    t.equal(removed.json().data.actions, undefined)
    const memberWrite = await server.inject({
      method: 'PATCH',
      url: `${DEFINITIONS}/${definition._id}`,
      headers: as.member,
      payload: { actions: [manual] },
    })
    t.equal(memberWrite.statusCode, 403, 'only administrators declare actions')
  },
)

t.test(
  'a manual action answers its result, with the document, its environment, its context and its input',
  async (t) => {
    const { server, as } = await build(t)
    const definition = await createDefinition(server, as.admin, {
      name: 'orders',
      actions: [
        {
          name: 'describe',
          triggers: ['manual'],
          source: 'console.log("running on", serverDocument._id)\nreturn { serverDocument, environmentId, context }',
        },
        { name: 'nothing', triggers: ['manual'], source: 'const x = 1' },
        { name: 'onCreate', triggers: ['afterCreate'], source: 'return 1' },
      ],
    })
    const document = await createDocument(server, as.member, 'orders', { title: 'first', externalId: 'ext-1' })

    const response = await runAction(server, as.member, 'orders', 'ext-1', 'describe', { quantity: 2 })
    t.equal(response.statusCode, 200)
    const { runId, result } = response.json().data
    t.match(runId, /^[0-9a-f]{24}$/)
    t.match(result.serverDocument, {
      _id: document._id,
      title: 'first',
      _permissions: { fullPermissions: false, userActionPermissions: ['read', 'create', 'update', 'delete'] },
    })
    t.equal(result.environmentId, ENV_A)
    t.same(result.context, {
      actionInfo: { id: `${definition._id}:describe`, name: 'describe' },
      actionType: 'manual',
      ddId: definition._id,
      clientDocument: { id: document._id },
      value: { id: document._id },
      workflowId: runId,
      input: { quantity: 2 },
      previous: null,
    })

    const noBody = await runAction(server, as.member, 'orders', document._id, 'nothing')
    t.equal(noBody.statusCode, 200)
    t.equal(noBody.json().data.result, null, 'no return value answers null')

    const unknown = await runAction(server, as.member, 'orders', document._id, 'missing')
    t.equal(unknown.statusCode, 404)
    t.equal(unknown.json().error, 'action_not_found')
    const notManual = await runAction(server, as.member, 'orders', document._id, 'onCreate')
    t.equal(notManual.statusCode, 404)
    t.equal(notManual.json().error, 'action_not_found')

    const hidden = await createDocument(server, as.admin, 'orders', { accessGroups: ['sales'] })
    const unseen = await runAction(server, as.member, 'orders', hidden._id, 'describe')
    t.equal(unseen.statusCode, 404, 'a document the member cannot see')
    t.equal(unseen.json().error, 'document_not_found')
    const seen = await runAction(server, as.sales, 'orders', hidden._id, 'describe')
    t.equal(seen.statusCode, 200, 'a member of its group may run it')

    const notAnObject = await server.inject({
      method: 'POST',
      url: `${documentsOf('orders')}/${document._id}/actions/describe`,
      headers: as.member,
      payload: [1, 2],
    })
    t.equal(notAnObject.statusCode, 400)
    let nested: Record<string, unknown> = {}
    for (let i = 0; i < 40; i++) nested = { inner: nested }
    const tooDeep = await runAction(server, as.member, 'orders', document._id, 'describe', nested)
    t.equal(tooDeep.statusCode, 400)
    t.match(tooDeep.json().description, /nested deeper than 32 levels/)
    const tooLarge = await runAction(server, as.member, 'orders', document._id, 'describe', {
      text: 'x'.repeat(70_000),
    })
    t.equal(tooLarge.statusCode, 413)

    const outsider = await runAction(server, as.outsider, 'orders', document._id, 'describe')
    t.equal(outsider.statusCode, 403, 'a caller without access to the environment')

    const runs = await actionRuns(server, as.admin, 'orders')
    const described = runs.find((run) => run._id === runId)
    t.match(described, {
      documentId: document._id,
      action: 'describe',
      trigger: 'manual',
      status: 'succeeded',
      attempt: 1,
      logs: [{ level: 'log', message: `running on ${document._id}` }],
    })
  },
)

t.test('REST.call acts as the caller: what the member may do, and nothing more', async (t) => {
  const { server, as } = await build(t)
  const call = (endpoint: string, method = 'GET', headers = '{}', body = 'undefined') =>
    `const body = await REST.call(${endpoint}, '${method}', ${headers}, ${body})\n` +
    'return { status: REST.lastStatus, body, type: REST.lastHeaders["content-type"] }'
  await createDefinition(server, as.admin, {
    name: 'notes',
    actions: [
      { name: 'runs', triggers: ['manual'], source: call('`api/v2/document-definitions/${context.ddId}/action-runs`') },
      {
        name: 'read',
        triggers: ['manual'],
        source: call('`api/v2/document-definitions/notes/documents/${context.input.id}`'),
      },
      {
        name: 'write',
        triggers: ['manual'],
        source: call(
          '`api/v2/document-definitions/notes/documents/${serverDocument._id}`',
          'PATCH',
          '{}',
          '{ touched: true }',
        ),
      },
      {
        name: 'elsewhere',
        triggers: ['manual'],
        source: call('"api/v2/document-definitions"', 'GET', "{ 'environment-id': 'env_b' }"),
      },
      {
        name: 'impersonate',
        triggers: ['manual'],
        source: call('"api/v2/document-definitions/notes/action-runs"', 'GET', "{ authorization: 'Bearer x.y.z' }"),
      },
      { name: 'outside', triggers: ['manual'], source: call('"http://example.com/api/v2/document-definitions"') },
      { name: 'environments', triggers: ['manual'], source: call('"api/v2/environments"') },
    ],
  })
  const mine = await createDocument(server, as.member, 'notes', { text: 'mine' })
  const secret = await createDocument(server, as.admin, 'notes', { text: 'secret', accessGroups: ['sales'] })

  const memberRuns = await runAction(server, as.member, 'notes', mine._id, 'runs')
  t.equal(memberRuns.statusCode, 200)
  t.match(
    memberRuns.json().data.result,
    { status: 403, body: { error: 'forbidden' } },
    'administrator-only: 403 inside',
  )
  const adminRuns = await runAction(server, as.admin, 'notes', mine._id, 'runs')
  t.match(adminRuns.json().data.result, { status: 200, body: { status: 'ok' }, type: /application\/json/ })

  const hidden = await runAction(server, as.member, 'notes', mine._id, 'read', { id: secret._id })
  t.match(hidden.json().data.result, { status: 404, body: { error: 'document_not_found' } }, 'hidden: 404 inside')
  const visible = await runAction(server, as.sales, 'notes', mine._id, 'read', { id: secret._id })
  t.match(visible.json().data.result, { status: 200, body: { _id: secret._id, text: 'secret' } })

  const written = await runAction(server, as.member, 'notes', mine._id, 'write')
  t.match(written.json().data.result, { status: 200, body: { data: { touched: true } } })
  const stored = await getDocument(server, as.admin, 'notes', mine._id)
  t.equal(stored.touched, true)
  t.equal(stored._lastModifiedByUserId, written.json().data.result.body.data._lastModifiedByUserId)
  t.equal(stored._lastModifiedByUserId, stored._createdByUserId, 'written as the member who ran it')

  // The administrator of A is also... nothing in B: and even a user of both stays in the action's environment.
  const elsewhere = await runAction(server, as.admin, 'notes', mine._id, 'elsewhere')
  t.match(elsewhere.json().data.result, { status: 403, body: { error: 'forbidden' } }, 'another environment: 403')
  const impersonate = await runAction(server, as.member, 'notes', mine._id, 'impersonate')
  t.match(impersonate.json().data.result, { status: 403 }, 'its own Authorization header is replaced by its caller')
  const outside = await runAction(server, as.member, 'notes', mine._id, 'outside')
  t.equal(outside.statusCode, 422)
  t.match(outside.json().description, /REST\.call takes a path of this API/)
  const environments = await runAction(server, as.admin, 'notes', mine._id, 'environments')
  t.equal(environments.statusCode, 200)
  t.match(environments.json().data.result, { status: 404 }, 'routes of other services are not mounted here')
})

t.test('a script has no file system, network, process or module loader', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'probe',
    actions: [
      {
        name: 'probe',
        triggers: ['manual'],
        source: [
          'const names = ["require", "process", "fetch", "setTimeout", "XMLHttpRequest", "std", "os", "Deno", "Bun"]',
          'const found = names.filter((name) => typeof globalThis[name] !== "undefined")',
          'let imported = "no"',
          'try { await import("os"); imported = "yes" } catch (error) { imported = String(error) }',
          'return { found, imported }',
        ].join('\n'),
      },
    ],
  })
  const document = await createDocument(server, as.member, 'probe')
  const response = await runAction(server, as.member, 'probe', document._id, 'probe')
  t.equal(response.statusCode, 200)
  t.same(response.json().data.result.found, [])
  t.not(response.json().data.result.imported, 'yes')
})

t.test('before-write actions refuse or change a write; the result is validated like a client body', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, {
    name: 'products',
    fields: { price: { type: 'number', required: true } },
    actions: [
      {
        name: 'guard',
        triggers: ['beforeCreate', 'beforeUpdate'],
        source: [
          'if (serverDocument.price < 0) refuse("Prices cannot be negative", "negative_price")',
          'if (serverDocument.name === "crash") throw new Error("kaboom")',
          'if (serverDocument.name === "invalid") return { ...serverDocument, price: "free" }',
          'if (serverDocument.name === "list") return [1]',
          'if (serverDocument.name === "groups") return { ...serverDocument, accessGroups: ["board"] }',
          'if (serverDocument.name === "system") return { ...serverDocument, _id: "forged", _createdByUserId: "x" }',
          'return { ...serverDocument, name: String(serverDocument.name ?? "").toUpperCase(), seenBefore: context.previous?.name ?? null }',
        ].join('\n'),
      },
      {
        name: 'second',
        triggers: ['beforeCreate'],
        source: 'return { ...serverDocument, chained: serverDocument.name }',
      },
      {
        name: 'keep',
        triggers: ['beforeDelete'],
        source: 'if (serverDocument.locked) refuse("This product is locked")\nreturn { ignored: true }',
      },
    ],
  })
  const stored = () => storedDocuments(resources.store, definition._id).find({})
  const create = (body: Record<string, unknown>, as_ = as.member) =>
    server.inject({ method: 'POST', url: `${documentsOf('products')}/new`, headers: as_, payload: body })

  const refused = await create({ name: 'bad', price: -1 })
  t.equal(refused.statusCode, 400)
  t.equal(refused.json().error, 'action_refused')
  t.equal(refused.json().userDescription, 'Prices cannot be negative')
  t.match(refused.json().description, /guard.*negative_price/)
  const failed = await create({ name: 'crash', price: 1 })
  t.equal(failed.statusCode, 422)
  t.equal(failed.json().error, 'action_failed')
  t.match(failed.json().description, /^Action "guard" failed \(exception\): Error: kaboom/)
  t.notMatch(failed.json().description, /at .*\.js/, 'no host stack')
  const invalid = await create({ name: 'invalid', price: 1 })
  t.equal(invalid.statusCode, 400)
  t.equal(invalid.json().error, 'validation_error', 'a change is validated by the field rules again')
  const list = await create({ name: 'list', price: 1 })
  t.equal(list.statusCode, 422)
  t.match(list.json().description, /\(result\)/)
  const groups = await create({ name: 'groups', price: 1 })
  t.equal(groups.statusCode, 403, "a change is held to the caller's write rules (groups it is not in)")
  t.same(await stored(), [], 'nothing refused was stored')

  const created = await create({ name: 'widget', price: 3 })
  t.equal(created.statusCode, 201)
  t.match(created.json().data, { name: 'WIDGET', chained: 'WIDGET', seenBefore: null, price: 3 })
  const system = await create({ name: 'system', price: 3 })
  t.equal(system.statusCode, 201)
  t.not(system.json().data._id, 'forged', 'system fields stay the write’s')
  t.not(system.json().data._createdByUserId, 'x')

  const patched = await server.inject({
    method: 'PATCH',
    url: `${documentsOf('products')}/${created.json().data._id}`,
    headers: as.member,
    payload: { name: 'gadget' },
  })
  t.equal(patched.statusCode, 200)
  t.match(patched.json().data, { name: 'GADGET', seenBefore: 'WIDGET' })
  const negative = await server.inject({
    method: 'PUT',
    url: `${documentsOf('products')}/${created.json().data._id}`,
    headers: as.member,
    payload: { name: 'gadget', price: -5 },
  })
  t.equal(negative.statusCode, 400)
  t.equal((await getDocument(server, as.admin, 'products', created.json().data._id)).price, 3, 'unchanged')

  const bulk = await server.inject({
    method: 'POST',
    url: `${documentsOf('products')}/bulk`,
    headers: as.member,
    payload: {
      operations: [
        { op: 'create', body: { name: 'one', price: 1 } },
        { op: 'create', body: { name: 'two', price: -2 } },
      ],
    },
  })
  t.equal(bulk.statusCode, 400)
  t.equal(bulk.json().error, 'action_refused')
  t.match(bulk.json().description, /^operations\/1: /)
  t.equal((await stored()).length, 2, 'a bulk call refused by an action writes nothing')
  const bulkOk = await server.inject({
    method: 'POST',
    url: `${documentsOf('products')}/bulk`,
    headers: as.member,
    payload: { operations: [{ op: 'create', body: { name: 'three', price: 1 } }] },
  })
  t.equal(bulkOk.statusCode, 200)
  t.equal((await getDocument(server, as.admin, 'products', bulkOk.json().data[0]._id)).name, 'THREE')

  const locked = await createDocument(server, as.admin, 'products', { name: 'locked', price: 1, locked: true })
  const keep = await server.inject({
    method: 'DELETE',
    url: `${documentsOf('products')}/${locked._id}`,
    headers: as.admin,
  })
  t.equal(keep.statusCode, 400)
  t.equal(keep.json().error, 'action_refused')
  t.equal(keep.json().userDescription, 'This product is locked')
  t.equal((await getDocument(server, as.admin, 'products', locked._id))._id, locked._id, 'still there')
  const gone = await server.inject({
    method: 'DELETE',
    url: `${documentsOf('products')}/${system.json().data._id}`,
    headers: as.admin,
  })
  t.equal(gone.statusCode, 200, 'what a before-delete action returns is ignored')

  const runs = await actionRuns(server, as.admin, 'products')
  t.ok(runs.some((run) => run.status === 'refused' && run.error?.code === 'negative_price'))
  t.ok(runs.some((run) => run.status === 'failed' && run.error?.kind === 'exception'))
  t.ok(runs.some((run) => run.status === 'failed' && run.error?.kind === 'result'))
  const memberRuns = await server.inject({
    method: 'GET',
    url: `${DEFINITIONS}/products/action-runs`,
    headers: as.member,
  })
  t.equal(memberRuns.statusCode, 403, 'runs are for administrators')
})

t.test('a script may copy its definition, passing its context as the copy body', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'templates',
    actions: [
      {
        name: 'duplicate',
        triggers: ['manual'],
        source: [
          'const copy = await REST.call(`api/v2/document-definitions?sourceId=${context.ddId}`, "POST", {}, context)',
          'return { status: REST.lastStatus, name: copy.data?.name, actions: copy.data?.actions?.length }',
        ].join('\n'),
      },
    ],
  })
  const document = await createDocument(server, as.admin, 'templates')
  const response = await runAction(server, as.admin, 'templates', document._id, 'duplicate', { note: 'from a script' })
  t.equal(response.statusCode, 200)
  t.same(response.json().data.result, { status: 201, name: 'templates (copy)', actions: 1 })
})
