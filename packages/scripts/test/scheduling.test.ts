import t from 'tap'
import {
  ScriptEngine,
  type EngineOptions,
  type RestAnswer,
  type RestRequest,
  type RunOutcome,
  type RunRequest,
} from '../src/index.js'

/**
 * An engine whose runs have CPU and wall time to spare: these tests are about scheduling, and on a machine loaded
 * many times over its cores a run's first stretch of guest code can take longer than the default limit, and a
 * parent waits for its children's threads to start.
 */
const newEngine = (options: EngineOptions) =>
  new ScriptEngine({ ...options, limits: { cpuMs: 10_000, wallMs: 120_000 } })
const answer = (body: unknown = null): RestAnswer => ({ status: 200, headers: {}, body })
const ok: RunRequest['rest'] = async () => answer()
const result = (outcome: RunOutcome) => (outcome.status === 'ok' ? outcome.result : outcome)
const failure = (outcome: RunOutcome) => (outcome.status === 'error' ? outcome.error : outcome)

/** A fake `rest` whose answers the test gives when it chooses; it keeps each call's signal. */
const heldRest = () => {
  const requests: { request: RestRequest; signal: AbortSignal; answer: (a: RestAnswer) => void }[] = []
  let arrived = () => {}
  const rest = (request: RestRequest, signal: AbortSignal) =>
    new Promise<RestAnswer>((resolve) => {
      requests.push({ request, signal, answer: resolve })
      arrived()
    })
  const until = async (count: number) => {
    while (requests.length < count) await new Promise<void>((resolve) => (arrived = resolve))
  }
  return { rest, requests, until }
}

t.test('nested runs cannot deadlock', async (t) => {
  /** A host whose REST.call sets off a run one level deeper and answers with its result, as actions do. */
  const nesting =
    (engine: ScriptEngine, tenant: string, depth: number): RunRequest['rest'] =>
    async (_, signal) => {
      const child = await engine.run({
        source: depth + 1 < 3 ? `return 1 + (await REST.call('deeper'))` : 'return 1',
        tenant,
        globals: {},
        rest: nesting(engine, tenant, depth + 1),
        depth: depth + 1,
        signal,
      })
      return answer(child.status === 'ok' ? child.result : failure(child))
    }
  const parents = (engine: ScriptEngine, count: number) =>
    Promise.all(
      Array.from({ length: count }, () =>
        engine.run({
          source: `return 1 + (await REST.call('child'))`,
          tenant: 'a',
          globals: {},
          rest: nesting(engine, 'a', 1),
        }),
      ),
    )

  t.test('more parents than the tenant may run at once, each waiting for a child and a grandchild', async (t) => {
    const engine = newEngine({ workers: 2, concurrentPerTenant: 4 })
    t.teardown(() => engine.close())
    const outcomes = await parents(engine, 12)
    t.same(outcomes.map(result), Array(12).fill(3))
    t.same(engine.stats(), { ...engine.stats(), running: 0, waiting: 0 })
  })

  t.test('one worker and one run per depth: the children run beside their parent', async (t) => {
    const engine = newEngine({ workers: 1, concurrentPerTenant: 1 })
    t.teardown(() => engine.close())
    const outcomes = await parents(engine, 3)
    t.same(outcomes.map(result), [3, 3, 3])
  })

  t.test('a full queue of parents neither refuses nor holds their children', async (t) => {
    const engine = newEngine({ workers: 1, concurrentPerTenant: 1, queuePerTenant: 1 })
    t.teardown(() => engine.close())
    const held = heldRest()
    const base = { tenant: 'a', globals: {}, rest: held.rest }
    const first = engine.run({ ...base, source: `return await REST.call('x')` })
    await held.until(1)
    const second = engine.run({ ...base, source: 'return 2' })
    t.match(failure(await engine.run({ ...base, source: 'return 3' })), { kind: 'busy' })
    t.same(result(await engine.run({ ...base, source: 'return "child"', depth: 2 })), 'child')
    held.requests[0]?.answer(answer(1))
    t.same(await Promise.all([first, second].map(async (outcome) => result(await outcome))), [1, 2])
  })

  t.test('depth is 1 to 3', async (t) => {
    const engine = newEngine({ workers: 1 })
    t.teardown(() => engine.close())
    const base = { source: 'return 1', tenant: 'a', globals: {}, rest: ok }
    await t.rejects(engine.run({ ...base, depth: 4 }), TypeError)
    await t.rejects(engine.run({ ...base, depth: 0 }), TypeError)
    await t.rejects(engine.run({ ...base, depth: 1.5 }), TypeError)
    t.same(result(await engine.run({ ...base, depth: 3 })), 1)
  })
})

t.test('a run whose caller gives up is cancelled', async (t) => {
  // One run of a tenant at a time: the second waits.
  const engine = newEngine({ workers: 1, concurrentPerTenant: 1 })
  t.teardown(() => engine.close())
  const cancelled = { kind: 'cancelled', message: 'The run was cancelled: its caller no longer waits for it' }

  t.test('an aborted signal: the run never starts', async (t) => {
    const calls: RestRequest[] = []
    const outcome = await engine.run({
      source: `await REST.call('x')`,
      tenant: 'a',
      globals: {},
      rest: async (request) => {
        calls.push(request)
        return answer()
      },
      signal: AbortSignal.abort(),
    })
    t.same(failure(outcome), cancelled)
    t.same(calls, [])
  })

  t.test('a waiting run leaves its queue and never starts', async (t) => {
    const held = heldRest()
    const first = engine.run({ source: `return await REST.call('first')`, tenant: 'a', globals: {}, rest: held.rest })
    await held.until(1)
    const controller = new AbortController()
    const second = engine.run({
      source: `return await REST.call('second')`,
      tenant: 'a',
      globals: {},
      rest: held.rest,
      signal: controller.signal,
    })
    t.equal(engine.stats().waiting, 1)
    controller.abort()
    t.same(failure(await second), cancelled)
    t.equal(engine.stats().waiting, 0)
    held.requests[0]?.answer(answer('one'))
    t.same(result(await first), 'one')
    t.same(
      held.requests.map((r) => r.request.endpoint),
      ['first'],
      'the cancelled run made no call',
    )
  })

  t.test('a run in flight is ended, its calls aborted, and the worker serves the next', async (t) => {
    const held = heldRest()
    const controller = new AbortController()
    const running = engine.run({
      source: `console.log('asking'); try { await REST.call('slow') } catch {} ; await REST.call('after')`,
      tenant: 'a',
      globals: {},
      rest: held.rest,
      signal: controller.signal,
    })
    await held.until(1)
    controller.abort()
    const outcome = await running
    t.same(failure(outcome), cancelled)
    t.same(outcome.logs, [{ level: 'log', message: 'asking' }])
    t.equal(held.requests[0]?.signal.aborted, true, 'its call is aborted')
    held.requests[0]?.answer(answer())
    t.same(result(await engine.run({ source: 'return 2', tenant: 'a', globals: {}, rest: ok })), 2)
    t.same(
      held.requests.map((r) => r.request.endpoint),
      ['slow'],
      'no call after the cancellation',
    )
    t.same(engine.stats(), { ...engine.stats(), running: 0, waiting: 0 })
  })

  t.test('a run looping in guest code is stopped', async (t) => {
    const controller = new AbortController()
    const outcome = await engine.run({
      source: `await REST.call('started'); while (true) {}`,
      tenant: 'a',
      globals: {},
      rest: async () => {
        setImmediate(() => controller.abort())
        return answer()
      },
      signal: controller.signal,
      // Limits it would never reach.
      limits: { cpuMs: 3_600_000, wallMs: 3_600_000 },
    })
    t.same(failure(outcome), cancelled)
  })

  t.test("the calls' signal aborts when the run ends ok or fails", async (t) => {
    const signals: AbortSignal[] = []
    const rest: RunRequest['rest'] = async (_, signal) => {
      signals.push(signal)
      return answer(1)
    }
    const base = { tenant: 'a', globals: {}, rest }
    t.same(result(await engine.run({ ...base, source: `return await REST.call('x')` })), 1)
    t.match(failure(await engine.run({ ...base, source: `await REST.call('x'); throw new Error('no')` })), {
      kind: 'exception',
    })
    t.same(
      signals.map((signal) => signal.aborted),
      [true, true],
    )
  })
})

t.test("one tenant's runaway never ends another tenant's runs", async (t) => {
  const engine = newEngine({ workers: 2 })
  t.teardown(() => engine.close())
  // Tenant b's runs are in flight, each with a REST.call made and another awaited.
  const held = heldRest()
  const rest: RunRequest['rest'] = (request, signal) =>
    request.endpoint === 'first' ? Promise.resolve(answer(1)) : held.rest(request, signal)
  const innocent = () =>
    engine.run({
      source: `const one = await REST.call('first'); return one + (await REST.call('second'))`,
      tenant: 'b',
      globals: {},
      rest,
      limits: { wallMs: 600_000 },
    })
  const before = Array.from({ length: 3 }, innocent)
  await held.until(3)
  // Tenant a: a native call that QuickJS never interrupts, 4 in flight: the watchdog ends their worker.
  const runaway = () =>
    engine.run({
      source: `new Array(2000).fill('x'.repeat(4e6)).sort()`,
      tenant: 'a',
      globals: {},
      rest: ok,
      limits: { cpuMs: 100 },
    })
  const runaways = Array.from({ length: 4 }, runaway)
  const during = innocent()
  await held.until(4)
  for (const outcome of await Promise.all(runaways)) t.match(failure(outcome), { kind: 'cpu' })
  for (const request of held.requests) request.answer(answer(1))
  t.same((await Promise.all([...before, during])).map(result), [2, 2, 2, 2])
})

t.test('a run waiting for a REST.call answer holds its thread but not its slot', async (t) => {
  const engine = newEngine({ workers: 1 })
  t.teardown(() => engine.close())
  const held = heldRest()
  const run = (tenant: string, source: string) => engine.run({ source, tenant, globals: {}, rest: held.rest })
  const a1 = run('a', `return REST.call('a1')`)
  await held.until(1)
  t.same(result(await run('b', `return 'b1'`)), 'b1', 'another tenant runs meanwhile')
  t.same(result(await run('a', `return 'a2'`)), 'a2', 'and so does the same tenant')
  t.equal(engine.stats().workers, 2, 'on another thread')
  held.requests[0]?.answer(answer('a1'))
  t.same(result(await a1), 'a1')
})
