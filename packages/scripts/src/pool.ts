/** The pool: runs queued per tenant and depth, served in turn, one run per worker thread. */

import { availableParallelism } from 'node:os'
import { performance } from 'node:perf_hooks'
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads'
import {
  SEGMENT_CANCEL,
  SEGMENT_SLOTS,
  SEGMENT_WAKE,
  type CompileResult,
  type FromWorker,
  type RestReply,
  type ToWorker,
  type WorkerData,
  type WorkerOutcome,
} from './protocol.js'
import {
  DEFAULT_LIMITS,
  MAX_RUN_DEPTH,
  type EngineOptions,
  type EngineStats,
  type RunOutcome,
  type RunRequest,
  type ScriptLimits,
} from './types.js'
import { SegmentWatchdog, stuckTimer } from './watchdog.js'

const MAX_SOURCE_BYTES = 64 * 1024
/**
 * Threads per worker slot: a run waiting for a REST.call answer holds its thread (the call is synchronous) but no
 * slot, so up to this many runs per slot may be waiting at once, as many as one worker interleaved before.
 */
const THREADS_PER_SLOT = 8
const IDLE_THREAD_MS = 30_000
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const RESERVED_GLOBALS = new Set(['REST', 'console', 'refuse', 'globalThis'])
// Built, the worker sits next to this file. Under tap the sources run as TypeScript but the worker is the built
// one, started without the test's loader: a worker that loads modules through loader hooks cannot start while
// another thread is blocked in Atomics.wait (a run waiting for a REST.call answer), when nested runs start theirs.
const FROM_SOURCES = import.meta.url.endsWith('.ts')
const WORKER_URL = new URL(FROM_SOURCES ? '../dist/worker.js' : './worker.js', import.meta.url)

interface Job {
  source: string
  depth: number
  /** Each global's name and value as JSON, made when the run was asked for (later changes to the objects do not count). */
  globals: [string, string][]
  rest: RunRequest['rest']
  limits: ScriptLimits
  tenant: Tenant
  /** Aborted when the run ends (or is cancelled): its REST.calls not yet under way never start. */
  ended: AbortController
  /** Where the run is while it is in flight. */
  flight?: { worker: PoolWorker; id: number; flight: Flight }
  resolve: (outcome: RunOutcome) => void
}

interface Tenant {
  name: string
  /** Its runs at each depth (index `depth - 1`). */
  levels: Level[]
}

interface Level {
  /** Waiting, in the order they were asked for. */
  queue: Job[]
  inFlight: number
}

interface Flight {
  job: Job
  started: number
  /** REST.call requests received: a run that made none had no effect and may start again elsewhere. */
  restCalls: number
  /** Its `RunRequest.signal` aborted: the worker was told to end it, and it ends `cancelled`. */
  cancelled: boolean
  /** Armed once the worker is ready (loading QuickJS is not the run's time). */
  stuck?: NodeJS.Timeout
}

interface Compile {
  source: string
  resolve: (result: CompileResult) => void
  /** Sent again once already, after its worker was lost. */
  retried: boolean
}

interface PoolWorker {
  thread: Worker
  flights: Map<number, Flight>
  compiles: Map<number, Compile>
  /** Set while it is idle: it ends then if the pool has more threads than slots. */
  retiring?: NodeJS.Timeout
  /** Its run waits for a REST.call answer: the thread is blocked, and takes no slot. */
  waiting: boolean
  /** Where REST.call answers go; SEGMENT_WAKE wakes the worker to read them. */
  answers: MessagePort
  ready: boolean
  wasmBytes: number
  /** The worker's current guest segment, published by the worker, read by the watchdog. */
  segment: Int32Array
}

const noStats = () => ({ logs: [], durationMs: 0, cpuMs: 0, restCalls: 0 })

/** Header values a guest sent, kept only when they are strings (or numbers, booleans) under ordinary names. */
const headersFrom = (json: string): Record<string, string> => {
  const parsed: unknown = JSON.parse(json)
  const headers: Record<string, string> = {}
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return headers
  for (const [name, value] of Object.entries(parsed)) {
    const kept = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    if (kept && name !== '__proto__') headers[name] = String(value)
  }
  return headers
}

/**
 * The pool's scheduling rules. A worker thread runs one run at a time: a REST.call blocks its thread until the
 * answer comes, so nothing else could run there meanwhile. `workers` slots bound the threads running guest code; a
 * thread whose run waits for an answer gives its slot up (up to THREADS_PER_SLOT threads per slot in all), and
 * threads past the slots end once idle. The watchdog that ends a worker (a guest stuck in a native call) thus ends
 * the culprit's run only. Fairness: tenants waiting are served in turn, one run each; a tenant that runs guest code
 * on a slot takes another only when that leaves one free for a tenant that runs none.
 *
 * Nested runs cannot deadlock: a run at depth d never waits for anything a run at a lower depth holds.
 * - Concurrency is counted per depth: at most `concurrentPerTenant` runs of a tenant at each depth, so the slots a
 *   depth-d run needs are held by depth-d runs only.
 * - Queues are per depth too (each bounded by `queuePerTenant`), and a tenant's turn starts its deepest run that
 *   may start: no parent waits in a queue ahead of its child.
 * - A nested run (depth > 1) starts on an idle thread or a new one, whatever the slots: its parent waits for it
 *   holding a thread, and every run of a lower depth may be doing the same.
 * So every wait goes from a run to one at its depth (a slot) or deeper (its REST.call's run); depth-3 runs set off
 * no run and end by themselves within their limits, hence by induction every depth's runs do. A cycle of waits
 * would have to come back up to a lower depth, which no wait does.
 */
export class ScriptEngine {
  private readonly workerCount: number
  private readonly limits: ScriptLimits
  private readonly queuePerTenant: number
  private readonly concurrentPerTenant: number
  private readonly workers: PoolWorker[] = []
  private readonly tenants = new Map<string, Tenant>()
  /** Tenants with waiting runs, in the order they are served. */
  private readonly ready: Tenant[] = []
  private nextId = 0
  private closed = false
  private readonly watchdog = new SegmentWatchdog(
    () => this.workers,
    (worker: PoolWorker, id, elapsed) => this.overran(worker, id, elapsed),
  )

  constructor(options: EngineOptions = {}) {
    // At least two: a tenant never holds every worker, so another environment is served meanwhile.
    this.workerCount = options.workers ?? Math.max(2, Math.min(4, availableParallelism() - 1))
    this.limits = { ...DEFAULT_LIMITS, ...options.limits }
    this.queuePerTenant = options.queuePerTenant ?? 64
    this.concurrentPerTenant = options.concurrentPerTenant ?? 4
  }

  /** Parses without running (in a worker). `line` when known. Sources over 64 KiB are refused here too. */
  async compile(source: string): Promise<CompileResult> {
    if (this.closed) throw new Error('The script engine is closed')
    if (Buffer.byteLength(source) > MAX_SOURCE_BYTES) return { ok: false, message: 'The source is larger than 64 KiB' }
    return new Promise((resolve) => this.compileOn({ source, resolve, retried: false }))
  }

  /** Never rejects for guest faults; only for programming errors. */
  async run(request: RunRequest): Promise<RunOutcome> {
    if (this.closed) throw new Error('The script engine is closed')
    for (const name of Object.keys(request.globals)) {
      if (!IDENTIFIER.test(name) || RESERVED_GLOBALS.has(name)) throw new TypeError(`Invalid script global: ${name}`)
    }
    const depth = request.depth ?? 1
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_RUN_DEPTH) {
      throw new TypeError(`Invalid run depth: ${depth} (1 to ${MAX_RUN_DEPTH})`)
    }
    const globals: [string, string][] = []
    for (const [name, value] of Object.entries(request.globals)) {
      const json = JSON.stringify(value)
      if (json !== undefined) globals.push([name, json])
    }
    const limits = { ...this.limits, ...request.limits }
    if (Buffer.byteLength(request.source) > MAX_SOURCE_BYTES) {
      return {
        status: 'error',
        error: { kind: 'exception', message: 'The source is larger than 64 KiB' },
        ...noStats(),
      }
    }
    const { signal } = request
    if (signal?.aborted) return cancelled()
    const tenant = this.tenants.get(request.tenant) ?? {
      name: request.tenant,
      levels: Array.from({ length: MAX_RUN_DEPTH }, () => ({ queue: [], inFlight: 0 })),
    }
    const { queue } = level(tenant, depth)
    if (queue.length >= this.queuePerTenant) {
      const message = `${queue.length} runs are already waiting for this tenant`
      return { status: 'error', error: { kind: 'busy', message }, ...noStats() }
    }
    this.tenants.set(tenant.name, tenant)
    return new Promise((resolve) => {
      const ended = new AbortController()
      const cancel = () => this.cancel(job)
      const job: Job = {
        source: request.source,
        depth,
        globals,
        rest: request.rest,
        limits,
        tenant,
        ended,
        resolve: (outcome) => {
          signal?.removeEventListener('abort', cancel)
          ended.abort()
          resolve(outcome)
        },
      }
      signal?.addEventListener('abort', cancel, { once: true })
      if (!waiting(tenant)) this.ready.push(tenant)
      queue.push(job)
      this.dispatch()
    })
  }

  stats(): EngineStats {
    let running = 0
    let waitingRuns = 0
    for (const tenant of this.tenants.values()) {
      for (const { queue, inFlight } of tenant.levels) {
        running += inFlight
        waitingRuns += queue.length
      }
    }
    const wasmBytes = Math.max(0, ...this.workers.map((worker) => worker.wasmBytes))
    return { workers: this.workers.length, running, waiting: waitingRuns, wasmBytes }
  }

  async close(): Promise<void> {
    this.closed = true
    for (const tenant of this.ready.splice(0)) {
      for (const { queue } of tenant.levels) {
        for (const job of queue.splice(0)) job.resolve(this.crash('The script engine closed'))
      }
    }
    await Promise.all([...this.workers].map((worker) => this.terminate(worker, 'The script engine closed')))
  }

  /** Starts waiting runs while there is room, by the rules above the class. */
  private dispatch() {
    if (this.closed) return
    for (;;) {
      let placed: { index: number; job: Job; worker: PoolWorker } | undefined
      for (const [index, tenant] of this.ready.entries()) {
        for (const job of this.startable(tenant)) {
          const worker = this.workerFor(tenant, job.depth)
          if (worker) {
            placed = { index, job, worker }
            break
          }
        }
        if (placed) break
      }
      if (!placed) return
      const { index, job, worker } = placed
      const tenant = job.tenant
      this.ready.splice(index, 1)
      level(tenant, job.depth).queue.shift()
      if (waiting(tenant)) this.ready.push(tenant)
      this.start(worker, job)
    }
  }

  /** The first waiting run of each depth within the tenant's concurrency there, deepest first. */
  private startable(tenant: Tenant): Job[] {
    const jobs: Job[] = []
    for (let depth = MAX_RUN_DEPTH; depth >= 1; depth--) {
      const { queue, inFlight } = level(tenant, depth)
      const job = queue[0]
      if (job && inFlight < this.concurrentPerTenant) jobs.push(job)
    }
    return jobs
  }

  /** Threads running guest code: they hold the slots. */
  private running(): PoolWorker[] {
    return this.workers.filter((worker) => worker.flights.size > 0 && !worker.waiting)
  }

  /** Depth-1 runs that may start now: free slots, within the threads' bound. */
  private spareSlots(): number {
    const busy = this.workers.filter((worker) => worker.flights.size > 0).length
    return Math.min(this.workerCount - this.running().length, this.workerCount * THREADS_PER_SLOT - busy)
  }

  /** The worker a run of `tenant` at `depth` starts on now, if any. */
  private workerFor(tenant: Tenant, depth: number): PoolWorker | undefined {
    const idle = () => this.workers.find((worker) => worker.flights.size === 0) ?? this.spawn()
    // A nested run: its parent waits for it on a thread of its own (see the class's comment).
    if (depth > 1) return idle()
    const holds = this.running().some((worker) => [...worker.flights.values()].some((f) => f.job.tenant === tenant))
    // A free slot, when the tenant holds none or taking it leaves one free for a tenant that holds none.
    return this.spareSlots() >= (holds ? 2 : 1) ? idle() : undefined
  }

  /**
   * On an idle worker, else a new one within the threads' bound (a run's thread may wait for an answer for its
   * whole wall time), else the one with the fewest compiles.
   */
  private compileOn(compile: Compile) {
    const idle = this.workers.find((worker) => worker.flights.size === 0)
    const least = () => this.workers.reduce((a, b) => (b.compiles.size < a.compiles.size ? b : a))
    const worker = idle ?? (this.workers.length < this.workerCount * THREADS_PER_SLOT ? this.spawn() : least())
    const id = this.nextId++
    worker.compiles.set(id, compile)
    this.post(worker, { type: 'compile', id, source: compile.source })
  }

  private spawn(): PoolWorker {
    const segment = new SharedArrayBuffer(SEGMENT_SLOTS * Int32Array.BYTES_PER_ELEMENT)
    const { port1: answers, port2 } = new MessageChannel()
    const workerData: WorkerData = { memoryBytes: this.limits.memoryBytes, segment, answers: port2 }
    const thread = new Worker(WORKER_URL, {
      resourceLimits: { stackSizeMb: 4 },
      workerData,
      transferList: [port2],
      ...(FROM_SOURCES && { execArgv: [] }),
    })
    answers.unref()
    const worker: PoolWorker = {
      thread,
      flights: new Map(),
      compiles: new Map(),
      waiting: false,
      answers,
      ready: false,
      wasmBytes: 0,
      segment: new Int32Array(segment),
    }
    Atomics.store(worker.segment, SEGMENT_CANCEL, -1)
    this.workers.push(worker)
    thread.on('message', (message: FromWorker) => this.receive(worker, message))
    // The exit that follows an error settles the worker's runs.
    thread.on('error', () => {})
    thread.on('exit', () => this.lost(worker, 'The script worker stopped'))
    // An idle worker never keeps the process alive (unref after the listeners: a 'message' listener refs again).
    thread.unref()
    return worker
  }

  private start(worker: PoolWorker, job: Job) {
    const id = this.nextId++
    clearTimeout(worker.retiring)
    level(job.tenant, job.depth).inFlight++
    const flight: Flight = { job, started: performance.now(), restCalls: 0, cancelled: false }
    worker.flights.set(id, flight)
    job.flight = { worker, id, flight }
    if (worker.ready) this.watch(worker, flight)
    this.watchdog.arm()
    this.post(worker, { type: 'run', id, source: job.source, globals: job.globals, limits: job.limits })
  }

  /**
   * The host no longer wants the run: a waiting one leaves its queue, never started; one in flight stops making
   * REST.calls at once and its worker is told to end it (it ends `cancelled` when the worker says so, or is lost).
   */
  private cancel(job: Job) {
    if (!job.flight) {
      const { tenant } = job
      const { queue } = level(tenant, job.depth)
      queue.splice(queue.indexOf(job), 1)
      if (!waiting(tenant)) this.ready.splice(this.ready.indexOf(tenant), 1)
      this.forget(tenant)
      job.resolve(cancelled())
      // A tenant waiting for a worker may have been waiting with this run only.
      this.dispatch()
      return
    }
    const { worker, id, flight } = job.flight
    flight.cancelled = true
    job.ended.abort()
    Atomics.store(worker.segment, SEGMENT_CANCEL, id)
    this.post(worker, { type: 'cancel', id })
    // A run waiting for an answer reads SEGMENT_CANCEL as it wakes.
    this.wake(worker)
  }

  /** The watchdog saw run `id` stuck in guest code past its CPU limit: it ends `cpu`, its worker with it. */
  private overran(worker: PoolWorker, id: number, elapsed: number) {
    const flight = worker.flights.get(id)
    if (!flight) return
    this.settle(worker, id, flight, {
      status: 'error',
      error: { kind: 'cpu', message: `The script used more than ${flight.job.limits.cpuMs} ms of CPU time` },
      logs: [],
      durationMs: round(performance.now() - flight.started),
      cpuMs: round(elapsed),
      restCalls: Math.min(flight.restCalls, flight.job.limits.restCalls),
    })
    void this.terminate(worker, 'The script worker was stopped: another run of this tenant overran its CPU limit', true)
  }

  private watch(worker: PoolWorker, flight: Flight) {
    flight.stuck = stuckTimer(flight.job.limits.wallMs, () => {
      void this.terminate(worker, 'The script worker stopped answering')
    })
  }

  private post(worker: PoolWorker, message: ToWorker) {
    // A worker with work keeps the process alive until the work ends (within its wall limit).
    worker.thread.ref()
    worker.thread.postMessage(message)
  }

  /**
   * Threads past the slots (taken by waiting and nested runs) end once idle for IDLE_THREAD_MS: starting one costs
   * far more than a run, and runs that wait for answers come in bursts.
   */
  private retire(worker: PoolWorker) {
    clearTimeout(worker.retiring)
    worker.retiring = setTimeout(() => {
      const idle = worker.flights.size === 0 && worker.compiles.size === 0
      if (idle && this.workers.length > this.workerCount) void this.terminate(worker, 'The script worker was idle')
    }, IDLE_THREAD_MS).unref()
  }

  /**
   * A thread started ahead while runs wait for answers: the run a call sets off (a nested action) or the next one
   * then starts at once instead of waiting for QuickJS to load on a new thread.
   */
  private keepSpare() {
    const spare = this.workers.some((worker) => worker.flights.size === 0)
    if (!spare && !this.closed && this.workers.length < this.workerCount * THREADS_PER_SLOT) this.retire(this.spawn())
  }

  private wake(worker: PoolWorker) {
    Atomics.add(worker.segment, SEGMENT_WAKE, 1)
    Atomics.notify(worker.segment, SEGMENT_WAKE)
  }

  private receive(worker: PoolWorker, message: FromWorker) {
    switch (message.type) {
      case 'ready':
        worker.ready = true
        for (const flight of worker.flights.values()) this.watch(worker, flight)
        return
      case 'rest': {
        const flight = worker.flights.get(message.id)
        if (!flight) return
        flight.restCalls++
        worker.waiting = true
        this.rest(worker, message, flight.job)
        this.keepSpare()
        // Its slot is free while it waits.
        break
      }
      case 'compiled':
        worker.compiles.get(message.id)?.resolve(message.result)
        worker.compiles.delete(message.id)
        break
      case 'done': {
        const flight = worker.flights.get(message.id)
        if (!flight) return
        this.settle(worker, message.id, flight, {
          ...this.outcome(message.outcome),
          logs: message.logs,
          durationMs: round(message.durationMs),
          cpuMs: round(message.cpuMs),
          restCalls: message.restCalls,
        })
        worker.wasmBytes = message.wasmBytes
        break
      }
    }
    if (worker.flights.size === 0 && worker.compiles.size === 0) {
      worker.thread.unref()
      this.retire(worker)
    }
    this.dispatch()
  }

  private outcome(outcome: WorkerOutcome) {
    if (outcome.status !== 'ok') return outcome
    // The guest's JSON is parsed, never evaluated: `__proto__` keys stay plain own properties.
    return { status: 'ok' as const, result: outcome.result === undefined ? undefined : JSON.parse(outcome.result) }
  }

  private rest(worker: PoolWorker, message: Extract<FromWorker, { type: 'rest' }>, job: Job) {
    const { id, call } = message
    // A cancelled run's worker is ending it: its calls never start.
    if (job.ended.signal.aborted) return
    const answer = (reply: { answer: string } | { error: string }) => {
      if (!worker.flights.has(id)) return
      const message: RestReply = { id, call, ...reply }
      worker.answers.postMessage(message)
      worker.waiting = false
      this.wake(worker)
    }
    Promise.resolve()
      .then(() =>
        job.rest(
          {
            endpoint: message.endpoint,
            method: message.method,
            headers: headersFrom(message.headers),
            ...(message.body === undefined ? {} : { body: JSON.parse(message.body) }),
          },
          job.ended.signal,
        ),
      )
      .then(
        ({ status, headers, body }) => answer({ answer: JSON.stringify({ status, headers, body }) }),
        (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
      )
      .catch((error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }))
  }

  /** The run ended: its slots are free, and a cancelled run ends `cancelled` whatever stopped it. */
  private settle(worker: PoolWorker, id: number, flight: Flight, outcome: RunOutcome) {
    this.leave(worker, id, flight)
    const { job } = flight
    this.forget(job.tenant)
    if (!flight.cancelled) return job.resolve(outcome)
    const { logs, durationMs, cpuMs, restCalls } = outcome
    job.resolve({ ...cancelled(), logs, durationMs, cpuMs, restCalls })
  }

  /** Takes a run off its worker; a worker left without runs hosts no tenant. */
  private leave(worker: PoolWorker, id: number, flight: Flight) {
    clearTimeout(flight.stuck)
    worker.flights.delete(id)
    const { job } = flight
    job.flight = undefined
    level(job.tenant, job.depth).inFlight--
    worker.waiting = false
  }

  /** A tenant with nothing waiting or in flight is dropped. */
  private forget(tenant: Tenant) {
    if (tenant.levels.every(({ queue, inFlight }) => queue.length === 0 && inFlight === 0)) {
      this.tenants.delete(tenant.name)
    }
  }

  private crash(message: string): RunOutcome {
    return { status: 'error', error: { kind: 'crash', message }, ...noStats() }
  }

  /**
   * A worker gone (died, stuck, stopped by the watchdog, closed): its runs (all of one tenant) end as crashes and
   * the pool may start another. When the watchdog stopped it (the culprit already settled), runs that made no
   * REST.call yet had no effect (they were still waiting for the thread) and are queued again. Its compiles (pure)
   * are sent again once.
   */
  private lost(worker: PoolWorker, message: string, requeue = false) {
    const index = this.workers.indexOf(worker)
    if (index === -1) return
    this.workers.splice(index, 1)
    clearTimeout(worker.retiring)
    for (const [id, flight] of worker.flights) {
      if (requeue && flight.restCalls === 0 && !flight.cancelled) {
        this.requeue(worker, id, flight)
        continue
      }
      this.settle(worker, id, flight, {
        ...this.crash(message),
        durationMs: round(performance.now() - flight.started),
      })
    }
    for (const compile of worker.compiles.values()) {
      if (this.closed || compile.retried) compile.resolve({ ok: false, message })
      else this.compileOn({ ...compile, retried: true })
    }
    worker.compiles.clear()
    this.dispatch()
  }

  /** Puts a run back at the head of its tenant's queue. */
  private requeue(worker: PoolWorker, id: number, flight: Flight) {
    this.leave(worker, id, flight)
    const { tenant } = flight.job
    if (!waiting(tenant)) this.ready.push(tenant)
    level(tenant, flight.job.depth).queue.unshift(flight.job)
  }

  private async terminate(worker: PoolWorker, message: string, requeue = false) {
    this.lost(worker, message, requeue)
    await worker.thread.terminate()
  }
}

const level = (tenant: Tenant, depth: number) => tenant.levels[depth - 1] as Level

const waiting = (tenant: Tenant) => tenant.levels.some(({ queue }) => queue.length > 0)

const cancelled = (): RunOutcome => ({
  status: 'error',
  error: { kind: 'cancelled', message: 'The run was cancelled: its caller no longer waits for it' },
  ...noStats(),
})

const round = (ms: number) => Math.round(ms * 1000) / 1000
