/* eslint-disable no-template-curly-in-string -- the scripts under test are JavaScript text with template literals */
import t from 'tap'
import { documentsCollection } from '../src/collections.js'
import { build, createDefinition, createDocument, ENV_A, getDocument, intercept } from './helper.js'
import { actionRuns, runAction } from './actions-helper.js'

t.test('a loop, a memory bomb and too many REST.calls fail the run (422) and the server goes on', async (t) => {
  const { server, as } = await build(t, { config: { QUIRE_SCRIPT_REST_CALLS: 3 } })
  await createDefinition(server, as.admin, {
    name: 'limits',
    actions: [
      { name: 'loop', triggers: ['manual'], source: 'while (true) {}' },
      { name: 'caught', triggers: ['manual'], source: 'for (;;) { try { while (true) {} } catch (error) {} }' },
      { name: 'bomb', triggers: ['manual'], source: 'return "x".repeat(32 * 1024 * 1024).length' },
      {
        name: 'calls',
        triggers: ['manual'],
        source:
          'for (let i = 0; i < 10; i++) {\n  try { await REST.call("api/v2/document-definitions") } catch {}\n}\nreturn 1',
      },
      { name: 'ok', triggers: ['manual'], source: 'return 1' },
    ],
  })
  const document = await createDocument(server, as.member, 'limits')
  const run = (name: string) => runAction(server, as.member, 'limits', document._id, name)

  const looping = run('loop')
  // Guest code never runs on the event loop: requests are answered while the loop spins in a worker.
  t.equal((await getDocument(server, as.member, 'limits', document._id))._id, document._id)
  const loop = await looping
  t.equal(loop.statusCode, 422)
  t.equal(loop.json().error, 'action_failed')
  t.match(loop.json().description, /^Action "loop" failed \(cpu\): .* \(run [0-9a-f]{24}\)$/)

  for (const [name, kind] of [
    ['caught', 'cpu'],
    ['bomb', 'memory'],
    ['calls', 'rest_calls'],
  ] as const) {
    const response = await run(name)
    t.equal(response.statusCode, 422, name)
    t.equal(response.json().error, 'action_failed', name)
    t.match(response.json().description, `failed (${kind})`, name)
  }
  t.equal((await run('ok')).statusCode, 200, 'the next run is fine')

  const runs = await actionRuns(server, as.admin, 'limits')
  t.same(
    runs.map((each) => [each.action, each.status, each.error?.kind]),
    [
      ['ok', 'succeeded', undefined],
      ['calls', 'failed', 'rest_calls'],
      ['bomb', 'failed', 'memory'],
      ['caught', 'failed', 'cpu'],
      ['loop', 'failed', 'cpu'],
    ],
  )
})

t.test('an answer larger than half the memory limit fails the REST.call inside the script', async (t) => {
  const { server, as } = await build(t, { config: { QUIRE_SCRIPT_MEMORY_MB: 2 } })
  await createDefinition(server, as.admin, {
    name: 'big',
    actions: [
      {
        name: 'list',
        triggers: ['manual'],
        source: [
          'try { await REST.call("api/v2/document-definitions/big/documents") } catch (error) { return String(error) }',
          'return "read"',
        ].join('\n'),
      },
    ],
  })
  const document = await createDocument(server, as.admin, 'big', { text: 'x'.repeat(600_000) })
  await createDocument(server, as.admin, 'big', { text: 'y'.repeat(600_000) })
  const response = await runAction(server, as.admin, 'big', document._id, 'list')
  t.equal(response.statusCode, 200)
  t.match(response.json().data.result, /REST\.call answer of \d+ bytes is over the limit of 1048576/)
})

t.test('actions setting off actions stop at depth 3: 409 action_depth_exceeded', async (t) => {
  const { server, as } = await build(t)
  await createDefinition(server, as.admin, {
    name: 'nested',
    actions: [
      {
        name: 'nest',
        triggers: ['manual'],
        source: [
          'const path = `api/v2/document-definitions/${context.ddId}/documents/${serverDocument._id}/actions/nest`',
          'const inner = await REST.call(path, "POST")',
          'return { status: REST.lastStatus, inner: inner.data?.result ?? inner.error }',
        ].join('\n'),
      },
    ],
  })
  const document = await createDocument(server, as.member, 'nested')
  const response = await runAction(server, as.member, 'nested', document._id, 'nest')
  t.equal(response.statusCode, 200)
  t.same(response.json().data.result, {
    status: 200,
    inner: { status: 200, inner: { status: 409, inner: 'action_depth_exceeded' } },
  })
})

t.test('an environment whose runs are all taken is answered 503 scripts_busy with retry-after', async (t) => {
  const { server, as, resources } = await build(t, {
    config: { QUIRE_SCRIPT_CONCURRENT_PER_ENVIRONMENT: 1, QUIRE_SCRIPT_QUEUE_PER_ENVIRONMENT: 1 },
  })
  const slow = await createDefinition(server, as.admin, { name: 'slow' })
  const held = await createDocument(server, as.admin, 'slow')
  await createDefinition(server, as.admin, {
    name: 'busy',
    actions: [
      {
        name: 'wait',
        triggers: ['manual'],
        source: `return await REST.call("api/v2/document-definitions/slow/documents/${held._id}")`,
      },
      { name: 'quick', triggers: ['manual'], source: 'return 1' },
    ],
  })
  const document = await createDocument(server, as.member, 'busy')
  // The first run's REST.call reads a document: that read waits until the test lets it go.
  let entered!: () => void
  const reading = new Promise<void>((resolve) => (entered = resolve))
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  intercept(
    resources.store,
    (name) => name === documentsCollection({ _id: slow._id, _environmentId: ENV_A }).name,
    (real) => ({
      findText: async (filter, options) => {
        entered()
        await released
        return real.findText(filter, options)
      },
    }),
  )
  const waiting = runAction(server, as.member, 'busy', document._id, 'wait')
  await reading
  // One run in progress (its REST.call held), room for one more to wait: of two more, one waits, one is refused.
  const second = runAction(server, as.member, 'busy', document._id, 'quick')
  const third = runAction(server, as.member, 'busy', document._id, 'quick')
  const busy = await Promise.race([second, third])
  t.equal(busy.statusCode, 503)
  t.equal(busy.json().error, 'scripts_busy')
  t.equal(busy.headers['retry-after'], '1')
  release()
  const done = await waiting
  t.equal(done.statusCode, 200)
  t.match(done.json().data.result, { _id: held._id })
  t.same([(await second).statusCode, (await third).statusCode].sort(), [200, 503], 'the waiting one ran')
  t.equal((await runAction(server, as.member, 'busy', document._id, 'quick')).statusCode, 200, 'free again')
})
