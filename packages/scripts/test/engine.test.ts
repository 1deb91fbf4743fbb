import t from 'tap'
import { ScriptEngine, type RestAnswer, type RestRequest, type RunOutcome, type RunRequest } from '../src/index.js'

// A run's CPU is the time its guest code runs, so a descheduled worker on a loaded machine can spend 100 ms (the
// default limit) on `return 1`: tests about other things allow far more, tests about the limit set it.
const roomy = { cpuMs: 10_000 }
// One engine for most tests: its two workers start once (under tap a worker compiles TypeScript as it starts).
const engine = new ScriptEngine({ workers: 2, limits: roomy })
t.teardown(() => engine.close())

const ok =
  (body: unknown = null): RunRequest['rest'] =>
  async () => ({ status: 200, headers: {}, body })
const run = (source: string, more: Partial<RunRequest> = {}) =>
  engine.run({ source, tenant: 'tenant-a', globals: {}, rest: ok(), ...more })

const result = (outcome: RunOutcome) => (outcome.status === 'ok' ? outcome.result : outcome)
const failure = (outcome: RunOutcome) => (outcome.status === 'error' ? outcome.error : outcome)

/** A fake `rest` whose answers the test gives, in the order it chooses. */
const heldRest = () => {
  const requests: {
    request: RestRequest
    signal: AbortSignal
    answer: (a: RestAnswer) => void
    fail: (e: Error) => void
  }[] = []
  let arrived = () => {}
  const rest = (request: RestRequest, signal: AbortSignal) =>
    new Promise<RestAnswer>((resolve, reject) => {
      requests.push({ request, signal, answer: resolve, fail: reject })
      arrived()
    })
  const until = async (count: number) => {
    while (requests.length < count) await new Promise<void>((resolve) => (arrived = resolve))
  }
  return { rest, requests, until }
}

t.test('what a script can do', async (t) => {
  t.test('return values, JSON or undefined', async (t) => {
    t.same(result(await run('return 1')), 1)
    t.same(result(await run('return { a: [1, "two", null], b: true }')), { a: [1, 'two', null], b: true })
    const nothing = await run('const x = 1')
    t.equal(nothing.status, 'ok')
    t.equal(result(nothing), undefined)
    t.same(result(await run('return await Promise.resolve(41) + 1')), 42, 'top-level await')
  })

  t.test('globals are the given JSON values and stay put', async (t) => {
    const globals = { serverDocument: { id: 'd1', title: 'Hello' }, environmentId: 'env-1', context: { value: 3 } }
    const outcome = await run('environmentId = "other"; return [serverDocument.title, environmentId, context.value]', {
      globals,
    })
    t.same(result(outcome), ['Hello', 'env-1', 3])
    await t.rejects(run('return 1', { globals: { 'not-an-identifier': 1 } }), TypeError)
    await t.rejects(run('return 1', { globals: { REST: 1 } }), TypeError)
  })

  t.test('REST.call sends endpoint, method, headers and body; answers the body, lastStatus, lastHeaders', async (t) => {
    const seen: RestRequest[] = []
    const rest = async (request: RestRequest) => {
      seen.push(request)
      return { status: 201, headers: { 'content-type': 'application/json', etag: '"1"' }, body: { id: 'new' } }
    }
    const outcome = await run(
      `const body = await REST.call('api/v2/things', 'POST', { 'x-trace': 'abc' }, { name: 'n' })
       const plain = await REST.call('api/v2/things/1')
       return [body, plain, REST.lastStatus, REST.lastHeaders]`,
      { rest },
    )
    t.same(result(outcome), [{ id: 'new' }, { id: 'new' }, 201, { 'content-type': 'application/json', etag: '"1"' }])
    t.same(seen, [
      { endpoint: 'api/v2/things', method: 'POST', headers: { 'x-trace': 'abc' }, body: { name: 'n' } },
      { endpoint: 'api/v2/things/1', method: 'GET', headers: {} },
    ])
    t.equal(outcome.restCalls, 2)
  })

  t.test('REST.call answers synchronously, as the platform does; await on it still works', async (t) => {
    const held = heldRest()
    const running = run(
      `const first = REST.call('first')
       const statusAfterFirst = REST.lastStatus
       const second = await REST.call('second')
       return [first, statusAfterFirst, second, REST.lastStatus]`,
      { rest: held.rest },
    )
    await held.until(1)
    held.requests[0]?.answer({ status: 201, headers: {}, body: { one: 1 } })
    await held.until(2)
    t.same(
      held.requests.map((r) => r.request.endpoint),
      ['first', 'second'],
      'the second call is made once the first has answered',
    )
    held.requests[1]?.answer({ status: 202, headers: {}, body: 'two' })
    t.same(result(await running), [{ one: 1 }, 201, 'two', 202])
  })

  t.test('a rejected REST.call is an exception the script can catch', async (t) => {
    const rest = async () => {
      throw new Error('no route to api/v2/nowhere')
    }
    const caught = await run(`try { await REST.call('api/v2/nowhere') } catch (e) { return e.message }`, { rest })
    t.same(result(caught), 'no route to api/v2/nowhere')
    const uncaught = await run(`await REST.call('api/v2/nowhere')`, { rest })
    t.same(failure(uncaught), { kind: 'exception', message: 'Error: no route to api/v2/nowhere (line 1)' })
  })

  t.test('console output is captured, formatted like Node', async (t) => {
    const outcome = await run(
      `console.log('a', 1, { b: [1, 'x'], 'c-d': null }, undefined)
       console.info('info')
       console.warn('warn', true)
       console.error(new TypeError('boom'))
       return 0`,
    )
    t.same(
      outcome.logs.map((l) => [l.level, l.message.split('\n')[0]]),
      [
        ['log', "a 1 { b: [ 1, 'x' ], 'c-d': null } undefined"],
        ['info', 'info'],
        ['warn', 'warn true'],
        ['error', 'TypeError: boom'],
      ],
    )
  })

  t.test('refuse ends the run with a message and a code, even when caught', async (t) => {
    const refused = await run(`refuse('Titles must be unique', 'duplicate_title')`)
    t.match(refused, { status: 'refused', message: 'Titles must be unique', code: 'duplicate_title' })
    const caught = await run(`try { refuse('No') } catch {} ; return 'still here'`)
    t.match(caught, { status: 'refused', message: 'No' })
    t.notOk('code' in caught)
    t.match(failure(await run(`refuse('No', 'Not A Code')`)), { kind: 'exception', message: /TypeError: refuse/ })
    t.match(failure(await run(`refuse('')`)), { kind: 'exception', message: /non-empty string/ })
  })

  t.test('an uncaught error names its line in the source', async (t) => {
    t.same(failure(await run('const a = 1\n\nnull.x')), {
      kind: 'exception',
      message: "TypeError: cannot read property 'x' of null (line 3)",
    })
    t.same(failure(await run('throw "plain"')), { kind: 'exception', message: "Uncaught 'plain'" })
    t.match(failure(await run('return 10n')), { kind: 'exception', message: /^The result is not JSON/ })
    t.match(failure(await run('await new Promise(() => {})')), { kind: 'exception', message: /never settle/ })
  })
})

t.test('what a script cannot do', async (t) => {
  t.test('no require, process, fetch, timers, std/os, WebAssembly', async (t) => {
    const outcome = await run(
      `return ['require', 'process', 'fetch', 'setTimeout', 'setInterval', 'std', 'os', 'print', 'scriptArgs',
        'WebAssembly', 'Buffer', 'module', 'exports', 'XMLHttpRequest'].filter((name) => name in globalThis)`,
    )
    t.same(result(outcome), [])
    const escape = await run(`return this.constructor.constructor('return typeof process')()`)
    t.same(result(escape), 'undefined', 'the Function constructor reaches the guest, not the host')
  })

  t.test('the only non-standard globals are the ones given', async (t) => {
    const outcome = await run(
      `const standard = new Set(Object.getOwnPropertyNames(Object.getPrototypeOf(globalThis)))
       return Object.getOwnPropertyNames(globalThis).filter((n) => /^[a-z]/.test(n) && !standard.has(n)).sort()`,
      { globals: { serverDocument: {} } },
    )
    t.same(result(outcome), [
      'console',
      'decodeURI',
      'decodeURIComponent',
      'encodeURI',
      'encodeURIComponent',
      'escape',
      'eval',
      'globalThis',
      'isFinite',
      'isNaN',
      'parseFloat',
      'parseInt',
      'refuse',
      'serverDocument',
      'undefined',
      'unescape',
    ])
  })

  t.test('import() of anything fails', async (t) => {
    t.match(failure(await run(`await import('fs')`)), { kind: 'exception', message: /could not load module 'fs'/ })
    t.match(failure(await run(`await import('node:child_process')`)), { kind: 'exception' })
  })

  t.test("the guest's JSON cannot pollute the host's prototypes", async (t) => {
    const seen: RestRequest[] = []
    const rest = async (request: RestRequest) => {
      seen.push(request)
      return { status: 200, headers: {}, body: null }
    }
    const outcome = await run(
      `const evil = JSON.parse('{"__proto__": {"polluted": "yes"}}')
       await REST.call('api/v2/x', 'POST', JSON.parse('{"__proto__": "x", "ok": "1"}'), evil)
       return evil`,
      { rest },
    )
    t.equal(({} as Record<string, unknown>).polluted, undefined)
    t.ok(Object.getOwnPropertyNames(result(outcome)).includes('__proto__'), 'a plain own property')
    t.same(seen[0]?.headers, { ok: '1' })
    t.equal(Object.getPrototypeOf(seen[0]?.body), Object.prototype)
  })

  t.test('nothing leaks from one run to the next', async (t) => {
    await run('Object.prototype.polluted = 1; globalThis.leak = 1; JSON.parse = null')
    const next = await run('return [typeof leak, ({}).polluted, typeof JSON.parse]', { tenant: 'tenant-b' })
    t.same(result(next), ['undefined', null, 'function'])
  })
})

t.test('limits', async (t) => {
  t.test('an infinite loop is stopped for CPU, caught or not', async (t) => {
    const loop = await run('while (true) {}', { limits: { cpuMs: 100 } })
    t.same(failure(loop), { kind: 'cpu', message: 'The script used more than 100 ms of CPU time' })
    t.ok(loop.cpuMs >= 100)
    const caught = await run('for (;;) { try { while (true) {} } catch {} }', { limits: { cpuMs: 30 } })
    t.match(caught, { status: 'error', error: { kind: 'cpu' } })
  })

  t.test("a looping tenant does not hold another tenant's run", async (t) => {
    // Both workers up first, so the order below depends on the scheduler only.
    await Promise.all(['warm-1', 'warm-2'].map((tenant) => run('return 1', { tenant })))
    const order: string[] = []
    const looping = run('while (true) {}', { limits: { cpuMs: 1500 } }).then((outcome) => {
      order.push('loop')
      return outcome
    })
    const quick = await run('return 2', { tenant: 'tenant-b' })
    order.push('quick')
    t.same(result(quick), 2)
    t.match(await looping, { status: 'error', error: { kind: 'cpu' } })
    t.same(order, ['quick', 'loop'])
  })

  t.test('a memory bomb is stopped', async (t) => {
    const limits = { memoryBytes: 4 * 1024 * 1024, cpuMs: 5000 }
    const memory = { kind: 'memory', message: `The script used more than ${4 * 1024 * 1024} bytes of memory` }
    const strings = await run(`const a = []; while (true) a.push('x'.repeat(1024) + a.length)`, { limits })
    t.same(failure(strings), memory)
    const objects = await run(`const a = []; while (true) a.push({ n: a.length })`, { limits })
    t.same(failure(objects), memory)
    const caught = await run(
      `const a = []; try { while (true) a.push('x'.repeat(1024)) } catch { a.length = 0 } return 1`,
      {
        limits,
      },
    )
    t.same(failure(caught), memory, 'even when caught')
    const once = await run(`return 'x'.repeat(16 * 1024 * 1024).length`, { limits })
    t.same(failure(once), memory, 'one large allocation')
  })

  t.test("large native allocations meet the bound of the run's WebAssembly memory", async (t) => {
    const bomb = 'const a = []; for (;;) a.push(new Array(1 << 20).fill())'
    const memory = { kind: 'memory', message: `The script used more than ${16 * 1024 * 1024} bytes of memory` }
    t.same(failure(await run(bomb)), memory, 'an endless bomb')
    const finite = 'let a = []; for (let i = 0; i < 100; i++) a.push(new Array(1 << 20).fill(0)); return a.length'
    t.same(failure(await run(finite)), memory, '800 MB in a hundred steps')
    t.same(failure(await run(`try { ${bomb} } catch {} return 1`)), memory, 'even when caught')
    t.same(result(await run('return 1')), 1, 'the next run is served')
    // Each worker holds at most its runs' modules and two idle ones, each bounded by 16 MiB + memoryBytes.
    const { wasmBytes } = engine.stats()
    t.ok(wasmBytes <= 4 * 32 * 1024 * 1024, `wasm memory ${wasmBytes} bytes`)
  })

  t.test('a loop around long native calls is stopped by the watchdog', async (t) => {
    const watched = new ScriptEngine({ workers: 1, limits: roomy })
    t.teardown(() => watched.close())
    const held = heldRest()
    const waiting = watched.run({ source: `return await REST.call('x')`, tenant: 'a', globals: {}, rest: held.rest })
    await held.until(1)
    // Garbage every round (no memory fault) and a native call long enough that QuickJS does not poll in time.
    let loopSignal: AbortSignal | undefined
    const loop = watched.run({
      source: `await REST.call('first'); for (;;) new Array(1 << 19).fill(1)`,
      tenant: 'a',
      limits: { cpuMs: 100 },
      globals: {},
      rest: async (_, signal) => {
        loopSignal = signal
        return { status: 200, headers: {}, body: null }
      },
    })
    const other = watched.run({ source: 'return 2', tenant: 'a', globals: {}, rest: ok() })
    t.same(failure(await loop), { kind: 'cpu', message: 'The script used more than 100 ms of CPU time' })
    t.equal(loopSignal?.aborted, true, "the culprit's calls are aborted")
    t.same(result(await other), 2, 'the run waiting for the slot runs next')
    // A worker runs one run: the watchdog ends the culprit's thread alone.
    t.equal(held.requests[0]?.signal.aborted, false, 'a run of the same tenant waiting on its own thread goes on')
    held.requests[0]?.answer({ status: 200, headers: {}, body: 1 })
    t.same(result(await waiting), 1)
    t.same(result(await watched.run({ source: 'return 3', tenant: 'a', globals: {}, rest: ok() })), 3)
  })

  t.test('deep recursion is an exception, not a crash', async (t) => {
    t.match(failure(await run('const f = (n) => f(n + 1) + 1; return f(0)')), { kind: 'exception', message: /stack/ })
    t.same(result(await run('const f = (n) => f(n + 1) + 1; try { f(0) } catch { return "caught" }')), 'caught')
  })

  t.test('too many REST.calls end the run, even when the script catches', async (t) => {
    const outcome = await run(
      `for (let i = 0; i < 10; i++) { try { await REST.call('api/v2/x') } catch {} } return 'done'`,
      {
        limits: { restCalls: 3 },
      },
    )
    t.same(failure(outcome), { kind: 'rest_calls', message: 'The script made more than 3 REST.call' })
    t.equal(outcome.restCalls, 3)
  })

  t.test('console output past the limit is truncated and marked', async (t) => {
    const outcome = await run(
      `console.log('a'.repeat(600)); console.log('b'.repeat(600)); console.log('c'); return 1`,
      {
        limits: { outputBytes: 1000 },
      },
    )
    t.equal(result(outcome), 1)
    t.equal(outcome.logs.length, 2)
    t.equal(outcome.logs[1]?.message, `${'b'.repeat(400)}… [output truncated at 1000 bytes]`)
  })

  t.test('a result larger than the output limit fails the run', async (t) => {
    const outcome = await run(`return 'x'.repeat(2000)`, { limits: { outputBytes: 1000 } })
    t.same(failure(outcome), { kind: 'output', message: 'The result is larger than 1000 bytes of JSON' })
  })

  t.test('a run waiting past its wall time is abandoned', async (t) => {
    const held = heldRest()
    const outcome = await run(`console.log('asking'); await REST.call('api/v2/slow'); return 1`, {
      rest: held.rest,
      limits: { wallMs: 500 },
    })
    t.same(failure(outcome), { kind: 'wall', message: 'The run took longer than 500 ms' })
    t.same(outcome.logs, [{ level: 'log', message: 'asking' }])
    t.equal(held.requests[0]?.signal.aborted, true, 'its call is aborted')
    held.requests[0]?.answer({ status: 200, headers: {}, body: null })
  })

  // One run at a time per tenant, one waiting.
  const busy = new ScriptEngine({ workers: 2, concurrentPerTenant: 1, queuePerTenant: 1, limits: roomy })
  t.teardown(() => busy.close())

  t.test('a tenant with too many runs waiting is told it is busy', async (t) => {
    const held = heldRest()
    const base = { tenant: 'a', globals: {}, rest: held.rest }
    const first = busy.run({ ...base, source: `return await REST.call('api/v2/x')` })
    const second = busy.run({ ...base, source: 'return 2' })
    const third = await busy.run({ ...base, source: 'return 3' })
    t.same(failure(third), { kind: 'busy', message: '1 runs are already waiting for this tenant' })
    const other = await busy.run({ ...base, tenant: 'b', source: 'return "b"' })
    t.same(result(other), 'b', 'another tenant is served meanwhile')
    await held.until(1)
    held.requests[0]?.answer({ status: 200, headers: {}, body: 1 })
    t.same(result(await first), 1)
    t.same(result(await second), 2)
  })

  t.test('many runs leave the worker memory bounded', async (t) => {
    for (let i = 0; i < 100; i++) {
      const outcome = await busy.run({
        source: `const s = 'x'.repeat(1 << 20) + ${i}; console.log(s.length); return s.length`,
        tenant: 'a',
        globals: {},
        rest: ok(),
      })
      if (outcome.status !== 'ok') t.fail(JSON.stringify(outcome))
    }
    const stats = busy.stats()
    t.ok(stats.wasmBytes < 64 * 1024 * 1024, `wasm memory ${stats.wasmBytes} bytes after 100 runs of 1 MiB`)
  })

  t.test('closing the engine ends the runs in flight as crashes and refuses new ones', async (t) => {
    const held = heldRest()
    const running = busy.run({ source: `await REST.call('api/v2/x')`, tenant: 'a', globals: {}, rest: held.rest })
    await held.until(1)
    await busy.close()
    t.same(failure(await running), { kind: 'crash', message: 'The script engine closed' })
    t.equal(held.requests[0]?.signal.aborted, true, 'its call is aborted')
    await t.rejects(busy.run({ source: 'return 1', tenant: 'a', globals: {}, rest: ok() }), /closed/)
  })
})

t.test('compile', async (t) => {
  t.same(await engine.compile(`const r = await REST.call('api/v2/x')\nreturn r`), { ok: true })
  t.same(await engine.compile('const a = 1\nreturn a +\n\n)'), {
    ok: false,
    message: "SyntaxError: unexpected token in expression: ')'",
    line: 4,
  })
  t.same(await engine.compile('x'.repeat(64 * 1024 + 1)), { ok: false, message: 'The source is larger than 64 KiB' })
  t.match(failure(await run('x'.repeat(64 * 1024 + 1))), { kind: 'exception', message: /larger than 64 KiB/ })
  t.same(await engine.compile('while (true) {}'), { ok: true }, 'compiling runs nothing')
})
