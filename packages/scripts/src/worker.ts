/**
 * A worker thread of the engine: it runs guests in QuickJS (WebAssembly, one runtime and context per run) and
 * interleaves them: a run waiting for a REST.call answer holds no thread. Limits are enforced here and recorded
 * here, so what a guest catches does not change how its run ends.
 */

import { parentPort } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import {
  newQuickJSWASMModule,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
} from 'quickjs-emscripten'
import type { LogLine, ScriptLimits } from './index.js'
import { FILE_NAME, lineOf, PREAMBLE, wrap } from './guest.js'
import type { CompileResult, FromWorker, ToWorker, WorkerOutcome } from './protocol.js'

if (!parentPort) throw new Error('@quire/scripts: worker.js runs only as a worker thread')
const port = parentPort

/** Deep recursion becomes a guest error long before the thread's own stack (4 MiB) is at risk. */
const MAX_STACK_BYTES = 512 * 1024
/** Guest CPU time between two measures of a run's heap, at least (a measure walks the heap: see `overMemory`). */
const MEMORY_CHECK_MS = 2
const REFUSAL_CODE = /^[a-z][a-z0-9_]{0,63}$/
const LOG_LEVELS = new Set<LogLine['level']>(['log', 'info', 'warn', 'error'])

const quickjs = await newQuickJSWASMModule()
const send = (message: FromWorker) => port.postMessage(message)
const wasmBytes = () => quickjs.getWasmMemory().buffer.byteLength

const failure = (kind: Extract<WorkerOutcome, { status: 'error' }>['error']['kind'], message: string) =>
  ({ status: 'error', error: { kind, message } }) as const

class Run {
  readonly runtime: QuickJSRuntime
  readonly context: QuickJSContext
  /** The first limit violation or refusal: it decides the outcome whatever the guest does afterwards. */
  fault: WorkerOutcome | undefined
  settled: WorkerOutcome | undefined
  cpuMs = 0
  /** When the running segment of guest code began (0: the guest is not running). */
  private segmentStart = 0
  readonly logs: LogLine[] = []
  private logBytes = 0
  private truncated = false
  restCalls = 0
  private nextCall = 0
  readonly calls = new Map<number, QuickJSDeferredPromise>()
  readonly started = performance.now()
  private readonly deadline: number
  private readonly timer: NodeJS.Timeout
  /** The guest CPU time at which the heap is measured next. */
  private nextMemoryCheck = MEMORY_CHECK_MS
  /** The worker's WebAssembly memory when the heap was last measured: growth past it calls for a measure. */
  private wasmMark = wasmBytes()

  constructor(
    readonly id: number,
    readonly limits: ScriptLimits,
  ) {
    this.deadline = this.started + limits.wallMs
    this.runtime = quickjs.newRuntime()
    this.runtime.setMemoryLimit(limits.memoryBytes)
    this.runtime.setMaxStackSize(MAX_STACK_BYTES)
    this.runtime.setInterruptHandler(() => this.shouldInterrupt())
    this.context = this.runtime.newContext()
    // While the run waits for REST.call answers, no interrupt can fire: this timer ends it.
    this.timer = setTimeout(() => {
      this.fault ??= failure('wall', `The run took longer than ${limits.wallMs} ms`)
      this.finish()
    }, limits.wallMs)
  }

  private shouldInterrupt(): boolean {
    if (this.fault) return true
    if (this.segmentStart === 0) return false
    const now = performance.now()
    const cpu = this.cpuMs + (now - this.segmentStart)
    if (cpu > this.limits.cpuMs) {
      this.fault = failure('cpu', `The script used more than ${this.limits.cpuMs} ms of CPU time`)
    } else if (now > this.deadline) {
      this.fault = failure('wall', `The run took longer than ${this.limits.wallMs} ms`)
    } else if (cpu >= this.nextMemoryCheck || wasmBytes() > this.wasmMark) {
      this.checkMemory(cpu)
    }
    return this.fault !== undefined
  }

  /**
   * QuickJS's own limit (`setMemoryLimit`, set too) counts allocations, not bytes, in this WebAssembly build (it
   * cannot see an allocation's size), so a heap of large strings passes it. The heap is measured instead
   * (JS_ComputeMemoryUsage walks it) whenever the worker's memory grew, and every few ms of guest CPU time, the
   * interval stretched so that measuring costs at most a fifth of the run.
   */
  private checkMemory(cpu: number) {
    const started = performance.now()
    const usage = this.runtime.computeMemoryUsage()
    const used = this.context.getProp(usage, 'memory_used_size').consume((size) => this.context.getNumber(size))
    usage.dispose()
    this.wasmMark = wasmBytes()
    this.nextMemoryCheck = cpu + Math.max(MEMORY_CHECK_MS, 4 * (performance.now() - started))
    if (used > this.limits.memoryBytes) this.fault ??= this.memoryFault()
  }

  private memoryFault() {
    return failure('memory', `The script used more than ${this.limits.memoryBytes} bytes of memory`)
  }

  /** Runs guest code, counting its CPU time. */
  private segment(work: () => void) {
    this.segmentStart = performance.now()
    try {
      work()
    } finally {
      this.cpuMs += performance.now() - this.segmentStart
      this.segmentStart = 0
    }
    // A large allocation in a short segment meets no interrupt check: measure when the memory grew or time passed.
    if (!this.fault && (this.cpuMs >= this.nextMemoryCheck || wasmBytes() > this.wasmMark)) this.checkMemory(this.cpuMs)
  }

  start(source: string, globals: string) {
    const { context } = this
    const settle = this.install(globals)
    if (!settle) return this.finish()
    this.segment(() => {
      const evaluated = context.evalCode(wrap(source), FILE_NAME)
      if (evaluated.error) {
        this.failWith(evaluated.error)
      } else {
        const settling = context.callFunction(settle, context.undefined, evaluated.value)
        settling.dispose()
        evaluated.value.dispose()
      }
    })
    settle.dispose()
    this.pump()
  }

  /** Evaluates the preamble with the host functions; answers the guest's `settle`, or undefined when it failed. */
  private install(globals: string): QuickJSHandle | undefined {
    const { context } = this
    const functions = [
      context.newFunction('rest', (endpoint, method, headers, body) =>
        this.rest(this.text(endpoint), this.text(method), this.text(headers), this.text(body)),
      ),
      context.newFunction('log', (level, message) => this.log(this.text(level), this.text(message))),
      context.newFunction('refuse', (message, code) => this.refuse(message, code)),
      context.newFunction('done', (json) => this.done(this.text(json))),
      context.newFunction('fail', (message, stack) => this.fail(this.text(message) ?? '', this.text(stack) ?? '')),
      context.newString(globals),
    ]
    try {
      const preamble = context.evalCode(PREAMBLE, 'preamble.js')
      if (preamble.error) return this.failWith(preamble.error)
      const settle = context.callFunction(preamble.value, context.undefined, ...functions)
      preamble.value.dispose()
      if (settle.error) return this.failWith(settle.error)
      return settle.value
    } finally {
      for (const handle of functions) handle.dispose()
    }
  }

  private text(handle: QuickJSHandle | undefined): string | undefined {
    return handle && this.context.typeof(handle) === 'string' ? this.context.getString(handle) : undefined
  }

  private rest(endpoint = '', method = 'GET', headers = '{}', body: string | undefined): QuickJSHandle {
    if (this.fault) throw new Error('The run is over')
    this.restCalls++
    if (this.restCalls > this.limits.restCalls) {
      this.fault = failure('rest_calls', `The script made more than ${this.limits.restCalls} REST.call`)
      throw new Error(this.fault.error.message)
    }
    const call = this.nextCall++
    const deferred = this.context.newPromise()
    this.calls.set(call, deferred)
    send({ type: 'rest', id: this.id, call, endpoint, method, headers, ...(body === undefined ? {} : { body }) })
    return deferred.handle
  }

  answer(call: number, answer: string | undefined, error: string | undefined) {
    const deferred = this.calls.get(call)
    if (!deferred) return
    this.calls.delete(call)
    if (answer === undefined) this.context.newError(error ?? 'REST.call failed').consume((e) => deferred.reject(e))
    else this.context.newString(answer).consume((s) => deferred.resolve(s))
    deferred.dispose()
    this.pump()
  }

  private log(level: string | undefined, message = '') {
    if (this.fault || this.truncated || !LOG_LEVELS.has(level as LogLine['level'])) return
    const room = this.limits.outputBytes - this.logBytes
    const bytes = Buffer.byteLength(message)
    if (bytes <= room) {
      this.logBytes += bytes
      this.logs.push({ level: level as LogLine['level'], message })
      return
    }
    // Cut at the byte budget; a character split by the cut is dropped.
    const kept = Buffer.from(message)
      .subarray(0, Math.max(0, room))
      .toString()
      .replace(/\uFFFD$/, '')
    this.logs.push({
      level: level as LogLine['level'],
      message: `${kept}… [output truncated at ${this.limits.outputBytes} bytes]`,
    })
    this.truncated = true
  }

  private refuse(messageHandle: QuickJSHandle | undefined, codeHandle: QuickJSHandle | undefined) {
    const message = this.text(messageHandle)
    const code = codeHandle && this.context.typeof(codeHandle) !== 'undefined' ? this.text(codeHandle) : undefined
    if (message === undefined || message.length === 0 || message.length > 1000) {
      throw new TypeError('refuse(message, code?): message is a non-empty string of at most 1000 characters')
    }
    if (
      codeHandle &&
      this.context.typeof(codeHandle) !== 'undefined' &&
      (code === undefined || !REFUSAL_CODE.test(code))
    ) {
      throw new TypeError('refuse(message, code?): code matches /^[a-z][a-z0-9_]{0,63}$/')
    }
    this.fault ??= { status: 'refused', message, ...(code === undefined ? {} : { code }) }
    // The guest may catch this, but the refusal is recorded and the next interrupt check ends the run.
    throw new Error('The script refused')
  }

  private done(json: string | undefined) {
    if (this.fault || this.settled) return
    if (json !== undefined && Buffer.byteLength(json) > this.limits.outputBytes) {
      this.settled = failure('output', `The result is larger than ${this.limits.outputBytes} bytes of JSON`)
    } else {
      this.settled = { status: 'ok', result: json }
    }
  }

  private fail(message: string, stack: string) {
    if (this.fault || this.settled) return
    if (message === 'InternalError: out of memory') {
      this.settled = this.memoryFault()
      return
    }
    const line = lineOf(stack)
    this.settled = failure('exception', line === undefined ? message : `${message} (line ${line})`)
  }

  /** An error that escaped to the host (a syntax error, a failing preamble): decided like a rejection; disposed. */
  private failWith(error: QuickJSHandle): undefined {
    const value: unknown = this.context.dump(error)
    error.dispose()
    if (value && typeof value === 'object' && 'message' in value) {
      const { name, message, stack } = value as { name?: unknown; message?: unknown; stack?: unknown }
      this.fail(`${String(name ?? 'Error')}: ${String(message)}`, String(stack ?? ''))
    } else {
      this.fail(`Uncaught ${JSON.stringify(value) ?? String(value)}`, '')
    }
    return undefined
  }

  /** Runs the guest's pending jobs, then ends the run if it is decided or can no longer progress. */
  private pump() {
    if (!this.fault && !this.settled) {
      this.segment(() => {
        const jobs = this.runtime.executePendingJobs()
        if (jobs.error) jobs.error.dispose()
      })
    }
    if (this.fault || this.settled) return this.finish()
    if (this.calls.size === 0 && !this.runtime.hasPendingJob()) {
      this.settled = failure('exception', 'The script awaited a promise that can never settle')
      this.finish()
    }
  }

  private finish() {
    if (!runs.delete(this.id)) return
    clearTimeout(this.timer)
    const outcome = this.fault ?? this.settled ?? failure('crash', 'The run ended without an outcome')
    for (const deferred of this.calls.values()) deferred.dispose()
    this.calls.clear()
    try {
      this.context.dispose()
      this.runtime.dispose()
    } catch {
      // A runtime that cannot be freed may leave the WebAssembly instance inconsistent: report this run and let
      // the engine replace the worker (its other runs end as crashes).
      report(this, outcome)
      process.exit(1)
    }
    report(this, outcome)
  }
}

const runs = new Map<number, Run>()

const report = (run: Run, outcome: WorkerOutcome) =>
  send({
    durationMs: performance.now() - run.started,
    type: 'done',
    id: run.id,
    outcome,
    logs: run.logs,
    cpuMs: run.cpuMs,
    restCalls: Math.min(run.restCalls, run.limits.restCalls),
    wasmBytes: wasmBytes(),
  })

const compile = (source: string): CompileResult => {
  const runtime = quickjs.newRuntime()
  runtime.setMemoryLimit(16 * 1024 * 1024)
  runtime.setMaxStackSize(MAX_STACK_BYTES)
  const context = runtime.newContext()
  try {
    const compiled = context.evalCode(wrap(source), FILE_NAME, { compileOnly: true })
    if (!compiled.error) {
      compiled.value.dispose()
      return { ok: true }
    }
    const error = context.dump(compiled.error) as {
      name?: unknown
      message?: unknown
      lineNumber?: unknown
      stack?: unknown
    }
    compiled.error.dispose()
    const line = typeof error.lineNumber === 'number' ? error.lineNumber : lineOf(String(error.stack ?? ''))
    return {
      ok: false,
      message: `${String(error.name)}: ${String(error.message)}`,
      ...(line === undefined ? {} : { line }),
    }
  } finally {
    context.dispose()
    runtime.dispose()
  }
}

send({ type: 'ready' })

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'run': {
      const run = new Run(message.id, message.limits)
      runs.set(message.id, run)
      run.start(message.source, message.globals)
      break
    }
    case 'rest':
      runs.get(message.id)?.answer(message.call, message.answer, message.error)
      break
    case 'compile':
      send({ type: 'compiled', id: message.id, result: compile(message.source) })
      break
  }
})
