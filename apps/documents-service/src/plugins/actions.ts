import { setMaxListeners } from 'node:events'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyInstance, LightMyRequestResponse } from 'fastify'
import { delegate, type Delegation, type Scope } from '@quire/auth'
import type {
  Action,
  ActionRun,
  ActionRunsQuerystring,
  ActionRunWrite,
  ActionTrigger,
  Document,
  Pagination,
} from '@quire/contracts'
import {
  ConflictError,
  newObjectId,
  type CollectionSpec,
  type Filter,
  type RecordStore,
  type Sort,
  type StoredRecord,
  type Transaction,
} from '@quire/records'
import { ScriptEngine, type RestAnswer, type RestRequest, type RunOutcome, type ScriptLimits } from '@quire/scripts'
import { ApiError, fail, sweepInChunks } from '@quire/service-kit'
import {
  DOCUMENTS_COLLECTIONS,
  type ActionJobRecord,
  type ActionRunRecord,
  type DefinitionRecord,
  type DocumentFields,
} from '../collections.js'
import type { DocumentsConfig } from '../config.js'
import { actionsFor, checkActionDepth, checkActionNames, isFieldsObject } from '../lib/actions.js'
import { AnswerBudget } from '../lib/answer-budget.js'

/** Who an action runs as: the user who set it off, in its environment, one level deeper than their call. */
interface Runner {
  userId: string
  environmentId: string
  depth: number
}

/** What the REST.calls of one run share. */
interface Calls {
  delegation: Delegation
  /** Aborted once the run has ended: waits for the answer budget stop, answers being read are dropped. */
  ended: AbortSignal
  /** A before-write run's trigger: its calls may only read. */
  readOnly: ActionTrigger | undefined
  /** The writes answered 2xx, as they were answered. */
  writes: ActionRunWrite[]
  /** Writes under way: the run's record waits for them (one not committed as the run ended is refused). */
  pending: Set<Promise<unknown>>
}

export interface Actions {
  /** Declared actions, as a definition write sends them: unique names, each source compiles (400 otherwise). */
  check(actions: readonly Action[] | undefined): Promise<void>
  /**
   * Runs one before-write action on the proposed document; resolves to the user fields it returns instead, or
   * undefined. Throws 400 `action_refused`, 422 `action_failed`, 503 `scripts_busy`.
   */
  before(
    scope: Scope,
    definition: DefinitionRecord,
    action: Action,
    trigger: ActionTrigger,
    proposed: Document,
    previous: Document | null,
  ): Promise<DocumentFields | undefined>
  /** Queues the after-write actions of `trigger` in `tx`, the write's own transaction. */
  enqueue(
    tx: Transaction,
    scope: Scope,
    definition: DefinitionRecord,
    trigger: ActionTrigger,
    document: Document,
    previous: Document | null,
  ): Promise<void>
  /** After a write that queued jobs committed: look for them now rather than at the next poll. */
  dispatch(): void
  /** Runs a manual action as `scope`; `input` is the call's body. */
  manual(
    scope: Scope,
    definition: DefinitionRecord,
    action: Action,
    document: Document,
    input: unknown,
  ): Promise<{ runId: string; result: unknown }>
  /** A page of the definition's runs, newest first. */
  runs(
    definition: DefinitionRecord,
    query: ActionRunsQuerystring,
  ): Promise<{ data: ActionRun[]; pagination: Pagination }>
  /**
   * A definition is gone: its waiting jobs and its runs go too, in bounded transactions. Closing stops it after
   * the transaction in progress: a job left behind is deleted when claimed (its definition is gone), a run when
   * its retention ends.
   */
  drop(definition: Pick<DefinitionRecord, '_id' | '_environmentId'>): Promise<void>
  /**
   * Deletes the runs past their retention, in bounded transactions; resolves to how many went. Run at start and
   * hourly; replicas may run it together (a conflict reads again).
   */
  sweep(): Promise<number>
}

declare module 'fastify' {
  interface FastifyInstance {
    actions: Actions
  }
}

/** Delays before an after-write job's next attempt; past the last, it is recorded failed. */
const BACKOFF_MS = [1000, 5000, 30_000, 120_000]
const MAX_ATTEMPTS = BACKOFF_MS.length + 1
/** A claimed job is the claimer's for its run's wall limit and this long; then it is due again. */
const LEASE_GRACE_MS = 50_000
const POLL_MS = 1000
/** After-write jobs run at once, in all; and per environment, so that one cannot hold every slot. */
const MAX_RUNNING = 16
const MAX_RUNNING_PER_ENVIRONMENT = 4
/** Jobs a definition may have waiting; past it writes still succeed but their after-write runs are dropped (recorded). */
const MAX_WAITING_PER_DEFINITION = 10_000
/** A definition's waiting count is read again this often; writes in between count themselves. */
const WAITING_COUNT_TTL_MS = 1000
const SWEEP_INTERVAL_MS = 60 * 60 * 1000
/** Manual and before-write run records wait this long, or until this many, to be written together. */
const RECORD_DELAY_MS = 50
const RECORD_BATCH = 200
const DAY_MS = 24 * 60 * 60 * 1000
/** Headers a script may not set: its identity is the delegation's, and proxies' headers are not its to forge. */
const HOST_HEADERS = /^(authorization|host|content-length|x-quire-.*|x-forwarded-.*|forwarded|x-real-ip)$/

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)
type Method = typeof METHODS extends Set<infer M> ? M : never
const isMethod = (method: string): method is Method => METHODS.has(method as Method)
/** What a before-write run may call: the write that set it off is not made yet and may still be refused. */
const READS: ReadonlySet<Method> = new Set(['GET', 'HEAD'])
/** Calls that change nothing; a run's record lists the others that succeeded. */
const SAFE: ReadonlySet<Method> = new Set(['GET', 'HEAD', 'OPTIONS'])
/** How much of a write's path its run's record keeps. */
const MAX_WRITE_PATH = 1000

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString()
const newHash = () => newObjectId()

function busy(): ApiError {
  return fail('scripts_busy', 'Too many actions are waiting in this environment; retry shortly')
}

/** The API error of a run that did not succeed. */
function runError(action: Action, outcome: Exclude<RunOutcome, { status: 'ok' }>, runId: string): ApiError {
  if (outcome.status === 'refused') {
    const code = outcome.code === undefined ? '' : ` (${outcome.code})`
    return fail('action_refused', `Action "${action.name}" refused${code}: ${outcome.message}`, outcome.message)
  }
  return fail(
    'action_failed',
    `Action "${action.name}" failed (${outcome.error.kind}): ${outcome.error.message} (run ${runId})`,
  )
}

/** The answer a REST.call gets: JSON parsed, else text. */
function parsedBody(contentType: string, text: string): unknown {
  if (!contentType.includes('json') || text === '') return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

function actions(
  fastify: FastifyInstance,
  store: RecordStore,
  config: DocumentsConfig,
  log: FastifyBaseLogger,
): Actions & { start(): void; stop(): void; close(): Promise<void> } {
  const limits: Partial<ScriptLimits> = {
    cpuMs: config.QUIRE_SCRIPT_CPU_MS,
    wallMs: config.QUIRE_SCRIPT_WALL_MS,
    memoryBytes: config.QUIRE_SCRIPT_MEMORY_MB * 1024 * 1024,
    restCalls: config.QUIRE_SCRIPT_REST_CALLS,
    outputBytes: config.QUIRE_SCRIPT_OUTPUT_KB * 1024,
  }
  const engine = new ScriptEngine({
    workers: config.QUIRE_SCRIPT_WORKERS,
    limits,
    concurrentPerTenant: config.QUIRE_SCRIPT_CONCURRENT_PER_ENVIRONMENT,
    queuePerTenant: config.QUIRE_SCRIPT_QUEUE_PER_ENVIRONMENT,
  })
  const leaseMs = config.QUIRE_SCRIPT_WALL_MS + LEASE_GRACE_MS
  const budget = new AnswerBudget(config.QUIRE_SCRIPT_ANSWER_BUDGET_MB * 1024 * 1024)
  /**
   * A script holds an answer in its heap: half of it at most, so the script can still use what it got; and no
   * more than the whole budget, or it could never be read.
   */
  const maxAnswerBytes = Math.min(Math.floor(config.QUIRE_SCRIPT_MEMORY_MB * 1024 * 1024 * 0.5), budget.total)
  const retentionMs = config.QUIRE_ACTION_RUN_RETENTION_DAYS * DAY_MS
  const runs = DOCUMENTS_COLLECTIONS.actionRuns.in(store)
  const jobs = DOCUMENTS_COLLECTIONS.actionJobs.in(store)
  const definitions = DOCUMENTS_COLLECTIONS.definitions.in(store)

  /**
   * Run records of manual and before-write runs, written without holding up the answer: gathered for a moment and
   * written in one transaction (one commit for many runs, instead of one each).
   */
  const unrecorded: ActionRunRecord[] = []
  let recordTimer: NodeJS.Timeout | undefined
  const recording = new Set<Promise<void>>()
  const waiting = new Map<string, { count: number; readAt: number }>()
  const running = new Map<string, number>()
  const inFlight = new Set<Promise<void>>()
  let polling = false
  let pollAgain = false
  let closed = false
  let poller: NodeJS.Timeout | undefined
  let sweeper: NodeJS.Timeout | undefined
  let sweeping: Promise<number> | undefined
  /** Deletions in progress (the sweep, definitions' drops): closing waits for their transaction in progress. */
  const deleting = new Set<Promise<number>>()

  /**
   * A run's REST.call: refused before it starts when the run can no longer make it (a before-write run's write,
   * a run that has ended). A write is tracked until it is answered, and listed in the run's record if it succeeded.
   */
  async function rest(calls: Calls, request: RestRequest, signal: AbortSignal): Promise<RestAnswer> {
    const endpoint = request.endpoint
    if (/^[A-Za-z][A-Za-z0-9+.-]*:|^\/\//.test(endpoint)) {
      throw new Error(`REST.call takes a path of this API (api/v2/...), not ${endpoint.slice(0, 100)}`)
    }
    const method = request.method.toUpperCase()
    if (!isMethod(method)) throw new Error(`REST.call method must be one of ${[...METHODS].join(', ')}`)
    if (calls.readOnly && !READS.has(method)) {
      throw new Error(
        `REST.call in a ${calls.readOnly} action may only read (GET or HEAD), not ${method}: the write that set it off is not made yet and may still be refused`,
      )
    }
    // The engine no longer waits for this call: it never starts.
    if (signal.aborted || calls.ended.aborted) throw new Error('REST.call not made: its run has ended')
    const headers: Record<string, string> = {
      accept: 'application/json',
      'environment-id': calls.delegation.headers['environment-id'],
    }
    for (const [name, value] of Object.entries(request.headers)) {
      const lower = name.toLowerCase()
      if (!HOST_HEADERS.test(lower)) headers[lower] = String(value)
    }
    headers.authorization = calls.delegation.headers.authorization
    let payload: string | undefined
    if (request.body !== undefined && request.body !== null) {
      payload = typeof request.body === 'string' ? request.body : JSON.stringify(request.body)
      headers['content-type'] ??= 'application/json'
    }
    const url = `/${endpoint.replace(/^\/+/, '')}`
    const answer = send(calls.ended, method, url, headers, payload)
    if (SAFE.has(method)) return answer
    const written = answer.then((done) => {
      if (done.status >= 200 && done.status < 300) {
        calls.writes.push({ method, path: url.slice(0, MAX_WRITE_PATH), status: done.status })
      }
      return done
    })
    calls.pending.add(written)
    const settled = () => calls.pending.delete(written)
    written.then(settled, settled)
    return written
  }

  /** Sends a REST.call in-process and reads its answer within the budget. */
  async function send(
    ended: AbortSignal,
    method: Method,
    url: string,
    headers: Record<string, string>,
    payload: string | undefined,
  ): Promise<RestAnswer> {
    const answer = await fastify.inject({
      method,
      url,
      headers,
      payloadAsStream: true,
      ...(payload === undefined ? {} : { payload }),
    })
    const answerHeaders: Record<string, string> = {}
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value)
    }
    const { bytes, give } = await readAnswer(answer, method, ended)
    try {
      return {
        status: answer.statusCode,
        headers: answerHeaders,
        body: parsedBody(answerHeaders['content-type'] ?? '', bytes.toString('utf8')),
      }
    } finally {
      // The script has it now (the engine copies it to the run's worker as soon as this resolves).
      give()
    }
  }

  /**
   * Reads an answer within the process's budget for answers: a declared length over the limit is refused unread;
   * otherwise the call waits for room for it (for the limit when no length is declared), in turn with every other
   * run's calls, and reading stops past that room. An answer left unread is closed (its source stops).
   */
  async function readAnswer(
    answer: LightMyRequestResponse,
    method: Method,
    ended: AbortSignal,
  ): Promise<{ bytes: Buffer; give: () => void }> {
    const stream = answer.stream()
    // The run's end stops the reading (an answer whose source stalls would otherwise hold its room for good).
    const stop = () => stream.destroy()
    ended.addEventListener('abort', stop, { once: true })
    let give: ((bytes?: number) => void) | undefined
    try {
      const declared = Number(answer.headers['content-length'] ?? Number.NaN)
      const empty = method === 'HEAD' || answer.statusCode === 204 || answer.statusCode === 304
      if (!empty && declared > maxAnswerBytes) {
        throw new Error(`REST.call answer of ${declared} bytes is over the limit of ${maxAnswerBytes}`)
      }
      const room = empty ? 0 : Number.isSafeInteger(declared) && declared >= 0 ? declared : maxAnswerBytes
      give = await budget.take(room, ended)
      const chunks: Buffer[] = []
      let length = 0
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        length += chunk.length
        if (length > room) {
          throw new Error(
            room === declared
              ? `REST.call answer is longer than the ${declared} bytes it declared`
              : `REST.call answer is over the limit of ${maxAnswerBytes} bytes`,
          )
        }
        chunks.push(chunk)
      }
      give(room - length)
      return { bytes: Buffer.concat(chunks, length), give }
    } catch (error) {
      give?.()
      stream.destroy()
      // Closing the server's side of the answer stops its source (a file being read, for one).
      answer.raw.res.destroy()
      throw error
    } finally {
      ended.removeEventListener('abort', stop)
    }
  }

  /**
   * One run of `action` as `runner`, through a delegation that ends with it; `signal` (the run whose call set this
   * one off has ended) stops it. Resolves once the writes its calls had under way are answered, with those that
   * succeeded.
   */
  async function execute(
    runner: Runner,
    definition: DefinitionRecord,
    action: Action,
    trigger: ActionTrigger,
    document: Document,
    previous: Document | null,
    input: unknown,
    runId: string,
    signal?: AbortSignal,
  ): Promise<{ outcome: RunOutcome; writes: ActionRunWrite[] }> {
    const delegation = delegate(runner)
    const ended = new AbortController()
    // Every call of the run waits on it at once (up to its REST.call limit): no leak to warn about.
    setMaxListeners(0, ended.signal)
    const calls: Calls = {
      delegation,
      ended: ended.signal,
      readOnly: trigger.startsWith('before') ? trigger : undefined,
      writes: [],
      pending: new Set(),
    }
    try {
      const outcome = await engine.run({
        source: action.source,
        tenant: runner.environmentId,
        depth: runner.depth,
        ...(signal && { signal }),
        globals: {
          serverDocument: document,
          environmentId: runner.environmentId,
          // The definition-copy body's names (spec): a script passes its context on as the platform's do.
          context: {
            actionInfo: { id: `${definition._id}:${action.name}`, name: action.name },
            actionType: trigger,
            ddId: definition._id,
            clientDocument: { id: document._id },
            value: { id: document._id },
            workflowId: runId,
            input: input ?? null,
            previous,
          },
        },
        rest: (request, callSignal) => rest(calls, request, callSignal),
      })
      return { outcome, writes: calls.writes }
    } finally {
      // A write not committed by now is refused (its scope's signal is the delegation's): the record waits for
      // the answers of those under way, so it lists every write that committed.
      delegation.release()
      ended.abort()
      await Promise.allSettled(calls.pending)
    }
  }

  function runRecord(
    runId: string,
    runner: Runner,
    definition: Pick<DefinitionRecord, '_id'>,
    documentId: string,
    action: Action,
    trigger: ActionTrigger,
    outcome: RunOutcome,
    writes: ActionRunWrite[],
    attempt: number,
    failure?: { kind: string; message: string },
  ): ActionRunRecord {
    const now = Date.now()
    const record: ActionRunRecord = {
      _id: runId,
      environmentId: runner.environmentId,
      definitionId: definition._id,
      documentId,
      action: action.name,
      trigger,
      status: 'succeeded',
      logs: outcome.logs,
      writes,
      durationMs: outcome.durationMs,
      attempt,
      userId: runner.userId,
      createdOn: new Date(now).toISOString(),
      expiresOn: new Date(now + retentionMs).toISOString(),
    }
    if (outcome.status === 'refused') {
      record.status = 'refused'
      record.error = { kind: 'refused', message: outcome.message, ...(outcome.code ? { code: outcome.code } : {}) }
    } else if (outcome.status === 'error') {
      record.status = 'failed'
      record.error = { kind: outcome.error.kind, message: outcome.error.message }
    } else if (failure) {
      record.status = 'failed'
      record.error = failure
    }
    return record
  }

  /** Stores a run record soon, without making the answer wait for it. */
  function record(run: ActionRunRecord): void {
    unrecorded.push(run)
    if (unrecorded.length >= RECORD_BATCH) writeRecords()
    else recordTimer ??= setTimeout(writeRecords, RECORD_DELAY_MS).unref()
  }

  /** Writes the gathered run records; `recording` holds the write until it is done (the runs list awaits it). */
  function writeRecords(): void {
    clearTimeout(recordTimer)
    recordTimer = undefined
    const batch = unrecorded.splice(0)
    if (batch.length === 0) return
    const write = store
      .transaction(async (tx) => {
        const into = DOCUMENTS_COLLECTIONS.actionRuns.in(tx)
        for (const run of batch) await into.insertOne(run)
      })
      .catch((error: unknown) => log.error({ err: error, runs: batch.length }, 'action runs not recorded'))
      .finally(() => recording.delete(write))
    recording.add(write)
  }

  /** Resolves once every run recorded so far is written. */
  async function recorded(): Promise<void> {
    writeRecords()
    await Promise.all(recording)
  }

  async function waitingJobs(definitionId: string): Promise<number> {
    const now = Date.now()
    const known = waiting.get(definitionId)
    if (known && now - known.readAt < WAITING_COUNT_TTL_MS) return known.count
    const count = await jobs.count({ definitionId })
    if (waiting.size > 10_000) waiting.clear()
    waiting.set(definitionId, { count, readAt: now })
    return count
  }

  // ---------------------------------------------------------------------------------------------------------
  // After-write jobs: claimed by lease, run, retried with backoff, recorded.

  function startJob(job: ActionJobRecord): void {
    running.set(job.environmentId, (running.get(job.environmentId) ?? 0) + 1)
    const work = runJob(job)
      .catch((error: unknown) => {
        if (!closed) log.error({ err: error, jobId: job._id }, 'action job failed to run')
      })
      .finally(() => {
        inFlight.delete(work)
        const left = (running.get(job.environmentId) ?? 1) - 1
        if (left > 0) running.set(job.environmentId, left)
        else running.delete(job.environmentId)
        dispatch()
      })
    inFlight.add(work)
  }

  async function runJob(job: ActionJobRecord): Promise<void> {
    const definition = await definitions.findOne({ _id: job.definitionId, _environmentId: job.environmentId })
    const current = definition && actionsFor(definition, job.trigger).find((each) => each.name === job.action)
    // The action (or its definition) was removed since the write: nothing is left to run.
    if (!definition || !current) {
      await jobs.deleteOne({ _id: job._id }, { expectedHash: job._hash })
      return
    }
    // The source current when the write committed: one saved since (a swap before a retry) is not this job's.
    const action = job.source === undefined ? current : { ...current, source: job.source }
    const runner = { userId: job.userId, environmentId: job.environmentId, depth: job.depth }
    const runId = newObjectId()
    const { outcome, writes } = await execute(
      runner,
      definition,
      action,
      job.trigger,
      job.document,
      job.previous,
      null,
      runId,
    )
    if (outcome.status === 'error' && outcome.error.kind === 'busy') {
      // Nothing ran: the attempt is given back.
      await jobs.updateOne(
        { _id: job._id },
        { $set: { dueOn: isoIn(POLL_MS), attempt: job.attempt - 1, _hash: newHash() } },
        { expectedHash: job._hash },
      )
      return
    }
    const retry = outcome.status === 'error' && job.attempt < MAX_ATTEMPTS
    const run = runRecord(runId, runner, definition, job.documentId, action, job.trigger, outcome, writes, job.attempt)
    try {
      await store.transaction(async (tx) => {
        const pending = DOCUMENTS_COLLECTIONS.actionJobs.in(tx)
        if (retry) {
          const dueOn = isoIn(BACKOFF_MS[job.attempt - 1] ?? BACKOFF_MS[BACKOFF_MS.length - 1]!)
          await pending.updateOne({ _id: job._id }, { $set: { dueOn, _hash: newHash() } }, { expectedHash: job._hash })
        } else {
          await pending.deleteOne({ _id: job._id }, { expectedHash: job._hash })
        }
        await DOCUMENTS_COLLECTIONS.actionRuns.in(tx).insertOne(run)
      })
    } catch (error) {
      // Its lease ended and another runner claimed it: that run is the one that counts.
      if (!(error instanceof ConflictError)) throw error
    }
  }

  /** Claims due jobs (as many as there are free slots) and starts them. */
  async function poll(): Promise<void> {
    if (polling) {
      pollAgain = true
      return
    }
    polling = true
    try {
      do {
        pollAgain = false
        const free = MAX_RUNNING - inFlight.size
        if (closed || free <= 0) break
        const full = [...running].filter(([, count]) => count >= MAX_RUNNING_PER_ENVIRONMENT).map(([id]) => id)
        const filter: Filter = { dueOn: { $lte: new Date().toISOString() } }
        if (full.length > 0) filter.environmentId = { $nin: full }
        const due = await jobs.find(filter, { sort: { dueOn: 1 }, limit: free })
        for (const job of due) {
          if (closed) break
          if ((running.get(job.environmentId) ?? 0) >= MAX_RUNNING_PER_ENVIRONMENT) {
            pollAgain = true
            continue
          }
          const claimed = { ...job, attempt: job.attempt + 1, dueOn: isoIn(leaseMs), _hash: newHash() }
          try {
            const { _id, ...replacement } = claimed
            if (!(await jobs.updateOne({ _id }, replacement, { expectedHash: job._hash }))) continue
          } catch (error) {
            // Another runner (a replica sharing the store) claimed it first.
            if (error instanceof ConflictError) continue
            throw error
          }
          startJob(claimed)
        }
      } while (pollAgain)
    } catch (error) {
      if (!closed) log.error({ err: error }, 'action jobs could not be claimed')
    } finally {
      polling = false
    }
  }

  function dispatch(): void {
    if (!closed) setImmediate(poll)
  }

  /**
   * Deletes the records of `spec` that `filter` matches, read through an index (`sort`, else the filter's equality
   * prefix) and each deleted only if it still matches, in transactions of at most 500 records and 1 MiB: a tenant
   * makes runs and jobs at will, and one `deleteMany` would hold the event loop for all of them.
   */
  function deleteAll<T extends StoredRecord>(spec: CollectionSpec<T>, filter: Filter, sort?: Sort): Promise<number> {
    const work = sweepInChunks({
      read: (limit) => spec.in(store).findText(filter, { ...(sort && { sort }), limit }),
      remove: (ids) =>
        store.transaction(async (tx) => {
          const records = spec.in(tx)
          let deleted = 0
          for (const _id of ids) if (await records.deleteOne({ ...filter, _id })) deleted++
          return deleted
        }),
      raced: (error) => error instanceof ConflictError,
      stopped: () => closed,
    }).finally(() => deleting.delete(work))
    deleting.add(work)
    return work
  }

  /** One sweep at a time: a timer that fires while one still runs (a large backlog) joins it. */
  function sweep(): Promise<number> {
    const expired = { expiresOn: { $lt: new Date().toISOString() } }
    sweeping ??= deleteAll(DOCUMENTS_COLLECTIONS.actionRuns, expired, { expiresOn: 1 }).finally(() => {
      sweeping = undefined
    })
    return sweeping
  }

  function sweepInBackground(): void {
    sweep().catch((error: unknown) => {
      if (!closed) log.error({ err: error }, 'expired action runs could not be swept')
    })
  }

  return {
    async check(declared) {
      if (!declared) return
      checkActionNames(declared)
      for (const [index, action] of declared.entries()) {
        const compiled = await engine.compile(action.source)
        if (!compiled.ok) {
          const line = compiled.line === undefined ? '' : ` (line ${compiled.line})`
          throw fail('validation_error', `body/actions/${index}/source${line}: ${compiled.message}`)
        }
      }
    },

    async before(scope, definition, action, trigger, proposed, previous) {
      const runner = { userId: scope.userId, environmentId: scope.environmentId, depth: scope.actionDepth + 1 }
      const runId = newObjectId()
      const { outcome, writes } = await execute(
        runner,
        definition,
        action,
        trigger,
        proposed,
        previous,
        null,
        runId,
        scope.signal,
      )
      if (outcome.status === 'error' && outcome.error.kind === 'busy') throw busy()
      const returned = outcome.status === 'ok' ? outcome.result : undefined
      // Only an object changes the document: anything else is a mistake in the script, not a silent no-op.
      const invalid = returned !== undefined && returned !== null && !isFieldsObject(returned)
      const failure = invalid
        ? { kind: 'result', message: `a ${trigger} action returns an object (the new fields) or nothing` }
        : undefined
      record(runRecord(runId, runner, definition, proposed._id, action, trigger, outcome, writes, 1, failure))
      if (outcome.status !== 'ok') throw runError(action, outcome, runId)
      if (failure) throw fail('action_failed', `Action "${action.name}" failed (result): ${failure.message}`)
      return trigger === 'beforeDelete' || !isFieldsObject(returned) ? undefined : returned
    },

    async enqueue(tx, scope, definition, trigger, document, previous) {
      const triggered = actionsFor(definition, trigger)
      if (triggered.length === 0) return
      const known = await waitingJobs(definition._id)
      const now = new Date().toISOString()
      for (const action of triggered) {
        const entry = waiting.get(definition._id)
        if (known >= MAX_WAITING_PER_DEFINITION) {
          // The write stands; the run it would have set off is recorded as dropped, for an administrator to see.
          const runner = { userId: scope.userId, environmentId: scope.environmentId, depth: scope.actionDepth + 1 }
          const dropped: RunOutcome = {
            status: 'ok',
            result: undefined,
            logs: [],
            durationMs: 0,
            cpuMs: 0,
            restCalls: 0,
          }
          const failure = {
            kind: 'queue_full',
            message: `more than ${MAX_WAITING_PER_DEFINITION} after-write runs of this definition are waiting`,
          }
          const run = runRecord(
            newObjectId(),
            runner,
            definition,
            document._id,
            action,
            trigger,
            dropped,
            [],
            1,
            failure,
          )
          await DOCUMENTS_COLLECTIONS.actionRuns.in(tx).insertOne(run)
          continue
        }
        if (entry) entry.count++
        await DOCUMENTS_COLLECTIONS.actionJobs.in(tx).insertOne({
          _id: newObjectId(),
          _hash: newHash(),
          environmentId: scope.environmentId,
          definitionId: definition._id,
          documentId: document._id,
          action: action.name,
          trigger,
          userId: scope.userId,
          depth: scope.actionDepth + 1,
          source: action.source,
          document,
          previous,
          attempt: 0,
          dueOn: now,
          createdOn: now,
        })
      }
    },

    dispatch,

    async manual(scope, definition, action, document, input) {
      checkActionDepth(scope.actionDepth, `Action "${action.name}"`)
      const runner = { userId: scope.userId, environmentId: scope.environmentId, depth: scope.actionDepth + 1 }
      const runId = newObjectId()
      const { outcome, writes } = await execute(
        runner,
        definition,
        action,
        'manual',
        document,
        null,
        input,
        runId,
        scope.signal,
      )
      if (outcome.status === 'error' && outcome.error.kind === 'busy') throw busy()
      record(runRecord(runId, runner, definition, document._id, action, 'manual', outcome, writes, 1))
      if (outcome.status !== 'ok') throw runError(action, outcome, runId)
      return { runId, result: outcome.result ?? null }
    },

    async runs(definition, { action, documentId, status, limit, after }) {
      // This process's own runs are readable as soon as their call answered.
      await recorded()
      const filter: Filter = { environmentId: definition._environmentId, definitionId: definition._id }
      if (action !== undefined) filter.action = action
      if (documentId !== undefined) filter.documentId = documentId
      if (status !== undefined) filter.status = status
      // `after` is a place in `_id` order: the next page starts past it whether or not that run still exists.
      const items = await runs.find(filter, {
        sort: { _id: -1 },
        limit: limit + 1,
        ...(after === undefined ? {} : { after: { _id: after } }),
      })
      const hasNext = items.length > limit
      if (hasNext) items.length = limit
      const pagination: Pagination = { hasPrevious: after !== undefined, hasNext, type: 'cursor' }
      const last = items.at(-1)
      if (hasNext && last) {
        const next = new URLSearchParams({ limit: String(limit) })
        if (action !== undefined) next.set('action', action)
        if (documentId !== undefined) next.set('documentId', documentId)
        if (status !== undefined) next.set('status', status)
        next.set('after', last._id)
        pagination.next = next.toString()
      }
      // Runs recorded before their writes were: none listed.
      return { data: items.map((run) => ({ ...run, writes: run.writes ?? [] })), pagination }
    },

    async drop(definition) {
      waiting.delete(definition._id)
      await deleteAll(DOCUMENTS_COLLECTIONS.actionJobs, { definitionId: definition._id })
      await deleteAll(DOCUMENTS_COLLECTIONS.actionRuns, {
        environmentId: definition._environmentId,
        definitionId: definition._id,
      })
    },

    sweep,

    start() {
      // Neither rejects: each logs its own failure.
      poller = setInterval(poll, POLL_MS).unref()
      sweeper = setInterval(sweepInBackground, SWEEP_INTERVAL_MS).unref()
      // Jobs left by a previous process (a restart, a crash) are due already: they run now.
      setImmediate(poll)
      setImmediate(sweepInBackground)
    },

    stop() {
      closed = true
      clearInterval(poller)
      clearInterval(sweeper)
    },

    async close() {
      await Promise.all(inFlight)
      // Each stops after its transaction in progress; the store must outlive it. A failure went to its caller.
      await Promise.allSettled(deleting)
      await recorded()
      await engine.close()
    },
  }
}

/**
 * Decorates `fastify.actions`: one script engine (workers start at the first run), the after-write dispatcher
 * (started once the server is ready, stopped as closing starts), the run records and their sweep (at start, then
 * hourly).
 */
export const actionsPlugin = fp<{ store: RecordStore; config: DocumentsConfig }>(
  async (fastify, { store, config }) => {
    const capability = actions(fastify, store, config, fastify.log)
    const { start, stop, close, ...decorated } = capability
    fastify.decorate('actions', decorated)
    fastify.addHook('onReady', async () => start())
    // Nothing new starts once closing does (no job claimed, no deletion's next transaction); what runs is waited for.
    fastify.addHook('preClose', async () => stop())
    fastify.addHook('onClose', async () => close())
    // Busy is transient: a client told when to come back retries instead of failing.
    fastify.addHook('onError', async (_request, reply, error) => {
      if (error instanceof ApiError && error.code === 'scripts_busy') reply.header('retry-after', '1')
    })
  },
  { name: '@quire/documents-actions', fastify: '5.x' },
)
