/**
 * A worker thread of the engine: it runs guests in QuickJS (WebAssembly, one runtime and context per run, each run
 * in a QuickJS module instance of its own whose memory is bounded by the run's memory limit). `REST.call` answers
 * synchronously, as the platform's does: the thread waits for the answer (`Atomics.wait`), so the engine gives a
 * worker one run at a time. Limits are enforced here and recorded here, so what a guest catches does not change
 * how its run ends.
 *
 * The guest's API (`REST`, `console`, `refuse`, the globals) is made of host functions: no preamble is parsed per
 * run. Values cross as JSON text through the guest's own `JSON.parse`/`JSON.stringify`, taken before user code runs
 * (a script that replaces them only fools itself), so the host never evaluates anything the guest built.
 */

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
  type VmCallResult,
} from 'quickjs-emscripten'
import type { LogLine, RunErrorKind, ScriptLimits } from './types.js'
import { FILE_NAME, INSPECT, lineOf, wrap } from './guest.js'
import {
  SEGMENT_CANCEL,
  SEGMENT_RUN,
  SEGMENT_SEQUENCE,
  SEGMENT_WAKE,
  type CompileResult,
  type FromWorker,
  type RestReply,
  type ToWorker,
  type WorkerData,
  type WorkerOutcome,
} from './protocol.js'

// The WebAssembly API this file uses (Node has it; its types come with TypeScript's DOM lib, not @types/node).
declare global {
  namespace WebAssembly {
    interface Module {}
    interface Memory {
      readonly buffer: ArrayBuffer
      grow(delta: number): number
    }
    const Memory: new (descriptor: { initial: number; maximum: number }) => Memory
    function compile(bytes: Uint8Array): Promise<Module>
  }
}

if (!parentPort) throw new Error('@quire/scripts: worker.js runs only as a worker thread')
const port = parentPort

/** Deep recursion becomes a guest error long before the thread's own stack (4 MiB) is at risk. */
const MAX_STACK_BYTES = 512 * 1024
const PAGE_BYTES = 65536
/** The build's own initial memory (16 MiB): QuickJS and its allocator before any guest allocates. */
const BASE_PAGES = 256
/** The largest memory a wasm32 build of QuickJS addresses here (its own default maximum, 2 GiB). */
const MAX_PAGES = 32768
/** Idle module instances of the engine's memory limit a worker keeps for the next runs. */
const IDLE_MODULES = 2
const REFUSAL_CODE = /^[a-z][a-z0-9_]{0,63}$/
const LOG_LEVELS: LogLine['level'][] = ['log', 'info', 'warn', 'error']

const { memoryBytes: poolBytes, segment: shared, answers } = workerData as WorkerData
/** What the engine's watchdog reads: the current guest segment (odd sequence: one is running) and its run. */
const watch = new Int32Array(shared)

/** One QuickJS module instance with its own memory, which the allocator cannot grow past the run's bound. */
interface Sandbox {
  module: QuickJSWASMModule
  memory: WebAssembly.Memory
  memoryBytes: number
  /** A growth of the memory was refused since the sandbox was taken: the run hit its memory limit. */
  exhausted: boolean
}

// Compiled once per worker; instantiating a module from it takes a few ms.
const require = createRequire(import.meta.url)
const wasm = await WebAssembly.compile(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')))
const idle: Sandbox[] = []

const instantiate = async (memoryBytes: number): Promise<Sandbox> => {
  const maximum = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(memoryBytes / PAGE_BYTES))
  const memory = new WebAssembly.Memory({ initial: BASE_PAGES, maximum })
  const variant = newVariant(RELEASE_SYNC, { wasmModule: wasm, wasmMemory: memory })
  const sandbox = { module: await newQuickJSWASMModuleFromVariant(variant), memory, memoryBytes, exhausted: false }
  // Emscripten grows the heap through this object's `grow` (emscripten_resize_heap), which throws past the
  // maximum. Seeing that refusal tells a run hit its bound even when the guest catches the 'out of memory' error.
  const grow = memory.grow.bind(memory)
  memory.grow = (delta: number) => {
    try {
      return grow(delta)
    } catch (error) {
      sandbox.exhausted = true
      throw error
    }
  }
  return sandbox
}

/** A module whose memory is bounded by `memoryBytes`: an idle one of the engine's limit when there is one. */
const acquire = async (memoryBytes: number): Promise<Sandbox> => {
  const sandbox = (memoryBytes === poolBytes ? idle.pop() : undefined) ?? (await instantiate(memoryBytes))
  sandbox.exhausted = false
  return sandbox
}

/** Its memory never exceeds its maximum and each run disposes its runtime, so a module is safe to reuse. */
const release = (sandbox: Sandbox) => {
  if (sandbox.memoryBytes === poolBytes && idle.length < IDLE_MODULES) idle.push(sandbox)
}

idle.push(await instantiate(poolBytes))
const send = (message: FromWorker) => port.postMessage(message)

const failure = (kind: RunErrorKind, message: string) => ({ status: 'error', error: { kind, message } }) as const
const cancelled = () => failure('cancelled', 'The run was cancelled: its caller no longer waits for it')

class Run {
  readonly runtime: QuickJSRuntime
  readonly context: QuickJSContext
  /** The first limit violation or refusal: it decides the outcome whatever the guest does afterwards. */
  private fault: WorkerOutcome | undefined
  private settled: WorkerOutcome | undefined
  cpuMs = 0
  /** When the running segment of guest code began (0: the guest is not running). */
  private segmentStart = 0
  readonly logs: LogLine[] = []
  private logBytes = 0
  private truncated = false
  restCalls = 0
  private nextCall = 0
  readonly started = performance.now()
  private readonly deadline: number
  private readonly timer: NodeJS.Timeout
  /** Handles the run keeps: the guest's JSON functions, `REST`, the formatter once compiled, the run's promise. */
  private readonly held: QuickJSHandle[] = []
  private readonly parse: QuickJSHandle
  private readonly stringify: QuickJSHandle
  private readonly rest: QuickJSHandle
  private inspect: QuickJSHandle | undefined
  private promise: QuickJSHandle | undefined

  constructor(
    readonly id: number,
    readonly limits: ScriptLimits,
    readonly sandbox: Sandbox,
  ) {
    this.deadline = this.started + limits.wallMs
    this.runtime = sandbox.module.newRuntime()
    this.runtime.setMaxStackSize(MAX_STACK_BYTES)
    this.runtime.setInterruptHandler(() => this.shouldInterrupt())
    this.context = this.runtime.newContext()
    const json = this.context.getProp(this.context.global, 'JSON')
    this.parse = this.hold(this.context.getProp(json, 'parse'))
    this.stringify = this.hold(this.context.getProp(json, 'stringify'))
    json.dispose()
    this.rest = this.hold(this.context.newObject())
    // While the run waits for REST.call answers, no interrupt can fire: this timer ends it.
    this.timer = setTimeout(() => {
      this.fault ??= failure('wall', `The run took longer than ${limits.wallMs} ms`)
      this.finish()
    }, limits.wallMs)
  }

  private hold(handle: QuickJSHandle): QuickJSHandle {
    this.held.push(handle)
    return handle
  }

  private shouldInterrupt(): boolean {
    if (this.fault) return true
    if (this.segmentStart === 0) return false
    const now = performance.now()
    const cpu = this.cpuMs + (now - this.segmentStart)
    if (Atomics.load(watch, SEGMENT_CANCEL) === this.id) {
      this.fault = cancelled()
    } else if (cpu > this.limits.cpuMs) {
      this.fault = failure('cpu', `The script used more than ${this.limits.cpuMs} ms of CPU time`)
    } else if (now > this.deadline) {
      this.fault = failure('wall', `The run took longer than ${this.limits.wallMs} ms`)
    } else if (this.sandbox.exhausted) {
      this.fault = this.memoryFault()
    }
    return this.fault !== undefined
  }

  private memoryFault() {
    return failure('memory', `The script used more than ${this.limits.memoryBytes} bytes of memory`)
  }

  /**
   * Runs guest code, counting its CPU time. The segment is published to the engine's watchdog: QuickJS polls the
   * interrupt handler only every 10 000 branches, so a loop around a long native call (`fill`, `join`, `sort`...)
   * may not poll for seconds, and the engine then ends the worker.
   */
  private segment<T>(work: () => T): T {
    if (this.segmentStart !== 0) return work()
    Atomics.store(watch, SEGMENT_RUN, this.id)
    Atomics.add(watch, SEGMENT_SEQUENCE, 1)
    this.segmentStart = performance.now()
    try {
      return work()
    } finally {
      Atomics.add(watch, SEGMENT_SEQUENCE, 1)
      this.cpuMs += performance.now() - this.segmentStart
      this.segmentStart = 0
      // A short segment meets no interrupt check: a refused growth is seen here.
      if (this.sandbox.exhausted) this.fault ??= this.memoryFault()
    }
  }

  start(source: string, globals: [string, string][]) {
    const { context } = this
    for (const [name, json] of globals) {
      const value = this.fromJson(json)
      if (value.error) {
        this.failWith(value.error)
        return this.finish()
      }
      context.defineProp(context.global, name, { value: value.value, enumerable: true, configurable: false })
      value.value.dispose()
    }
    this.installApi()
    this.segment(() => {
      const evaluated = context.evalCode(wrap(source), FILE_NAME)
      if (evaluated.error) this.failWith(evaluated.error)
      else this.promise = this.hold(evaluated.value)
    })
    this.pump()
  }

  private installApi() {
    const { context } = this
    const define = (target: QuickJSHandle, name: string, value: QuickJSHandle) => {
      context.defineProp(target, name, { value, enumerable: false, configurable: false })
      value.dispose()
    }
    const call = context.newFunction('call', (endpoint, method, headers, body) =>
      this.call(endpoint, method, headers, body),
    )
    define(this.rest, 'call', call)
    context.setProp(this.rest, 'lastStatus', context.undefined)
    context.setProp(this.rest, 'lastHeaders', context.undefined)
    context.defineProp(context.global, 'REST', { value: this.rest, enumerable: false, configurable: false })
    const console = context.newObject()
    for (const level of LOG_LEVELS) {
      define(
        console,
        level,
        context.newFunction(level, (...args) => this.log(level, args)),
      )
    }
    define(context.global, 'console', console)
    define(
      context.global,
      'refuse',
      context.newFunction('refuse', (message, code) => this.refuse(message, code)),
    )
  }

  private fromJson(json: string): VmCallResult<QuickJSHandle> {
    return this.context
      .newString(json)
      .consume((text) => this.context.callFunction(this.parse, this.context.undefined, text))
  }

  /** The guest value as JSON text (undefined for `undefined` and functions), or the guest's error. */
  private toJson(handle: QuickJSHandle): { json: string | undefined } | { error: QuickJSHandle } {
    const result = this.context.callFunction(this.stringify, this.context.undefined, handle)
    if (result.error) return { error: result.error }
    return { json: result.value.consume((text) => this.text(text)) }
  }

  private text(handle: QuickJSHandle | undefined): string | undefined {
    return handle && this.context.typeof(handle) === 'string' ? this.context.getString(handle) : undefined
  }

  private present(handle: QuickJSHandle | undefined): handle is QuickJSHandle {
    return handle !== undefined && this.context.typeof(handle) !== 'undefined'
  }

  /**
   * `REST.call(endpoint, method = 'GET', headers = {}, body)`: the answer's body, synchronously (`await` on it
   * still works); `REST.lastStatus` and `lastHeaders` are set as it returns. A rejected call throws.
   */
  private call(...args: (QuickJSHandle | undefined)[]): QuickJSHandle | VmCallResult<QuickJSHandle> {
    const [endpointArg, methodArg, headersArg, bodyArg] = args
    if (this.fault) throw new Error('The run is over')
    const endpoint = this.text(endpointArg)
    const method = this.present(methodArg) ? this.text(methodArg) : 'GET'
    if (endpoint === undefined || method === undefined) throw new TypeError('REST.call(endpoint, method): strings')
    let headers = '{}'
    if (this.present(headersArg)) {
      const encoded = this.toJson(headersArg)
      if ('error' in encoded) return { error: encoded.error }
      headers = encoded.json ?? '{}'
    }
    let body: string | undefined
    if (this.present(bodyArg)) {
      const encoded = this.toJson(bodyArg)
      if ('error' in encoded) return { error: encoded.error }
      body = encoded.json
    }
    this.restCalls++
    if (this.restCalls > this.limits.restCalls) {
      this.fault = failure('rest_calls', `The script made more than ${this.limits.restCalls} REST.call`)
      throw new Error(this.fault.error.message)
    }
    const call = this.nextCall++
    send({ type: 'rest', id: this.id, call, endpoint, method, headers, ...(body === undefined ? {} : { body }) })
    const reply = this.pause(() => this.wait(call))
    if (this.fault) throw new Error('The run is over')
    const parsed = reply.answer === undefined ? undefined : this.fromJson(reply.answer)
    if (!parsed || parsed.error) {
      parsed?.error?.dispose()
      return { error: this.context.newError(reply.error ?? 'REST.call failed') }
    }
    const { context } = this
    const value = parsed.value
    context.getProp(value, 'status').consume((status) => context.setProp(this.rest, 'lastStatus', status))
    context.getProp(value, 'headers').consume((headers) => context.setProp(this.rest, 'lastHeaders', headers))
    const answered = context.getProp(value, 'body')
    value.dispose()
    return answered
  }

  /**
   * Blocks the thread until the engine answers `call`, the run is cancelled or its wall time ends (the fault is
   * set then). Answers of calls whose run ended while they were under way are dropped.
   */
  private wait(call: number): Omit<RestReply, 'id' | 'call'> {
    for (;;) {
      const seen = Atomics.load(watch, SEGMENT_WAKE)
      for (let next = receiveMessageOnPort(answers); next; next = receiveMessageOnPort(answers)) {
        const reply = next.message as RestReply
        if (reply.id === this.id && reply.call === call) return reply
      }
      if (Atomics.load(watch, SEGMENT_CANCEL) === this.id) {
        this.fault ??= cancelled()
        return {}
      }
      const left = this.deadline - performance.now()
      if (left <= 0) {
        this.fault ??= failure('wall', `The run took longer than ${this.limits.wallMs} ms`)
        return {}
      }
      Atomics.wait(watch, SEGMENT_WAKE, seen, left)
    }
  }

  /** Runs `work` outside the guest segment under way: waiting for an answer is neither CPU time nor a stuck guest. */
  private pause<T>(work: () => T): T {
    const inSegment = this.segmentStart !== 0
    if (inSegment) {
      Atomics.add(watch, SEGMENT_SEQUENCE, 1)
      this.cpuMs += performance.now() - this.segmentStart
      this.segmentStart = 0
    }
    try {
      return work()
    } finally {
      if (inSegment) {
        Atomics.store(watch, SEGMENT_RUN, this.id)
        Atomics.add(watch, SEGMENT_SEQUENCE, 1)
        this.segmentStart = performance.now()
      }
    }
  }

  private log(level: LogLine['level'], args: QuickJSHandle[]) {
    if (this.fault || this.truncated) return
    const strings = args.map((arg) => this.text(arg))
    let message: string
    if (strings.every((s) => s !== undefined)) {
      message = strings.join(' ')
    } else {
      if (!this.inspect) {
        const compiled = this.context.evalCode(INSPECT, 'inspect.js')
        if (compiled.error) return { error: compiled.error }
        this.inspect = this.hold(compiled.value)
      }
      const formatted = this.context.callFunction(this.inspect, this.context.undefined, ...args)
      if (formatted.error) return { error: formatted.error }
      message = formatted.value.consume((text) => this.text(text)) ?? ''
    }
    const room = this.limits.outputBytes - this.logBytes
    const bytes = Buffer.byteLength(message)
    if (bytes <= room) {
      this.logBytes += bytes
      this.logs.push({ level, message })
      return
    }
    // Cut at the byte budget; a character split by the cut is dropped.
    const kept = Buffer.from(message)
      .subarray(0, room)
      .toString()
      .replace(/\uFFFD$/, '')
    this.logs.push({ level, message: `${kept}… [output truncated at ${this.limits.outputBytes} bytes]` })
    this.truncated = true
  }

  private refuse(messageArg: QuickJSHandle | undefined, codeArg: QuickJSHandle | undefined) {
    const message = this.text(messageArg)
    const code = this.present(codeArg) ? this.text(codeArg) : undefined
    if (message === undefined || message.length === 0 || message.length > 1000) {
      throw new TypeError('refuse(message, code?): message is a non-empty string of at most 1000 characters')
    }
    if (this.present(codeArg) && (code === undefined || !REFUSAL_CODE.test(code))) {
      throw new TypeError('refuse(message, code?): code matches /^[a-z][a-z0-9_]{0,63}$/')
    }
    this.fault ??= { status: 'refused', message, ...(code === undefined ? {} : { code }) }
    // The guest may catch this, but the refusal is recorded and the next interrupt check ends the run.
    throw new Error('The script refused')
  }

  /** The run's promise settled: its value as JSON, or its error. */
  private conclude() {
    if (!this.promise || this.fault || this.settled) return
    const state = this.context.getPromiseState(this.promise)
    if (state.type === 'pending') return
    if (state.type === 'rejected') return this.failWith(state.error)
    const encoded = this.segment(() => this.toJson(state.value))
    state.value.dispose()
    if ('error' in encoded) {
      const [message] = this.describe(encoded.error)
      return this.fail(`The result is not JSON: ${message}`, '')
    }
    if (encoded.json !== undefined && Buffer.byteLength(encoded.json) > this.limits.outputBytes) {
      this.settled = failure('output', `The result is larger than ${this.limits.outputBytes} bytes of JSON`)
    } else {
      this.settled = { status: 'ok', result: encoded.json }
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

  /** An error's message and stack; reading them may run guest code (getters), so it counts as guest time. Disposes. */
  private describe(error: QuickJSHandle): [string, string] {
    const value: unknown = this.segment(() => this.context.dump(error))
    error.dispose()
    if (value && typeof value === 'object' && 'message' in value) {
      const { name, message, stack } = value as { name?: unknown; message?: unknown; stack?: unknown }
      return [`${String(name ?? 'Error')}: ${String(message)}`, String(stack ?? '')]
    }
    return [`Uncaught ${typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? String(value))}`, '']
  }

  private failWith(error: QuickJSHandle) {
    const [message, stack] = this.describe(error)
    this.fail(message, stack)
  }

  /** Runs the guest's pending jobs, then ends the run if it is decided or can no longer progress. */
  private pump() {
    if (!this.fault && !this.settled) {
      this.segment(() => {
        const jobs = this.runtime.executePendingJobs()
        if (jobs.error) jobs.error.dispose()
      })
      this.conclude()
    }
    if (this.fault || this.settled) return this.finish()
    if (!this.runtime.hasPendingJob()) {
      this.settled = failure('exception', 'The script awaited a promise that can never settle')
      this.finish()
    }
  }

  /** The host no longer wants the run. Guest code is not running (this comes as a message): it ends now. */
  cancel() {
    this.fault ??= cancelled()
    this.finish()
  }

  finish() {
    if (!runs.delete(this.id)) return
    clearTimeout(this.timer)
    // Host calls outside segments (JSON of a REST answer) allocate too: a refused growth decides the outcome.
    const exhausted = this.sandbox.exhausted ? this.memoryFault() : undefined
    const outcome = this.fault ?? exhausted ?? this.settled ?? failure('crash', 'The run ended without an outcome')
    try {
      for (const handle of this.held) handle.dispose()
      this.context.dispose()
      this.runtime.dispose()
      release(this.sandbox)
    } catch {
      // A runtime that cannot be freed may leave its module inconsistent: the module is dropped, not reused.
    }
    report(this, outcome)
  }
}

const runs = new Map<number, Run>()

const report = (run: Run, outcome: WorkerOutcome) =>
  send({
    type: 'done',
    id: run.id,
    outcome,
    logs: run.logs,
    durationMs: performance.now() - run.started,
    cpuMs: run.cpuMs,
    restCalls: Math.min(run.restCalls, run.limits.restCalls),
    wasmBytes: wasmBytes(),
  })

/** The WebAssembly memory the worker holds: its runs' modules and the idle ones. */
const wasmBytes = () => {
  let bytes = 0
  for (const sandbox of idle) bytes += sandbox.memory.buffer.byteLength
  for (const run of runs.values()) bytes += run.sandbox.memory.buffer.byteLength
  return bytes
}

const compile = async (source: string): Promise<CompileResult> => {
  const sandbox = await acquire(poolBytes)
  const runtime = sandbox.module.newRuntime()
  runtime.setMaxStackSize(MAX_STACK_BYTES)
  const context = runtime.newContext()
  try {
    const compiled = context.evalCode(wrap(source), FILE_NAME, { compileOnly: true })
    if (!compiled.error) {
      compiled.value.dispose()
      return { ok: true }
    }
    const error = context.dump(compiled.error) as { name?: unknown; message?: unknown; lineNumber?: unknown }
    compiled.error.dispose()
    const message = `${String(error.name)}: ${String(error.message)}`
    return typeof error.lineNumber === 'number'
      ? { ok: false, message, line: error.lineNumber }
      : { ok: false, message }
  } finally {
    context.dispose()
    runtime.dispose()
    release(sandbox)
  }
}

/** Runs waiting for their QuickJS module, and those of them cancelled meanwhile. */
const starting = new Set<number>()
const cancelledStarts = new Set<number>()

const start = async (message: Extract<ToWorker, { type: 'run' }>) => {
  const ended = (outcome: WorkerOutcome) =>
    send({
      type: 'done',
      id: message.id,
      outcome,
      logs: [],
      durationMs: 0,
      cpuMs: 0,
      restCalls: 0,
      wasmBytes: wasmBytes(),
    })
  let sandbox: Sandbox
  starting.add(message.id)
  try {
    sandbox = await acquire(message.limits.memoryBytes)
  } catch (error) {
    cancelledStarts.delete(message.id)
    return ended(
      failure('crash', `No QuickJS module for the run: ${error instanceof Error ? error.message : String(error)}`),
    )
  } finally {
    starting.delete(message.id)
  }
  if (cancelledStarts.delete(message.id)) {
    release(sandbox)
    return ended(cancelled())
  }
  const run = new Run(message.id, message.limits, sandbox)
  runs.set(message.id, run)
  run.start(message.source, message.globals)
}

send({ type: 'ready' })

port.on('message', (message: ToWorker) => {
  switch (message.type) {
    case 'run':
      void start(message)
      break
    case 'cancel':
      if (starting.has(message.id)) cancelledStarts.add(message.id)
      else runs.get(message.id)?.cancel()
      break
    case 'compile':
      void compile(message.source).then(
        (result) => send({ type: 'compiled', id: message.id, result }),
        (error: unknown) => send({ type: 'compiled', id: message.id, result: { ok: false, message: String(error) } }),
      )
      break
  }
})
