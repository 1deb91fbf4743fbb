import { setMaxListeners } from 'node:events'
import { delegate, type Scope } from '@quire/auth'
import type {
  Action,
  ActionRun,
  ActionRunsQuerystring,
  ActionRunWrite,
  ActionTrigger,
  Document,
  Pagination,
} from '@quire/contracts'
import { newObjectId, type Filter, type RecordStore, type Transaction } from '@quire/records'
import type { RunOutcome, ScriptEngine } from '@quire/scripts'
import { ApiError, fail } from '@quire/service-kit'
import { DOCUMENTS_COLLECTIONS, type DefinitionRecord, type DocumentFields } from '../../collections.js'
import { checkActionDepth, checkActionNames, isFieldsObject } from '../../lib/actions.js'
import { AnswerBudget } from '../../lib/answer-budget.js'
import { afterWriteJobs } from './jobs.js'
import { runRetention } from './retention.js'
import { restCalls, type Calls, type RestTransport } from './rest-calls.js'
import { runRecord, runRecorder, type ErrorLog, type RunFacts, type Runner } from './run-records.js'

export type { RestTransport } from './rest-calls.js'

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

/** What the actions need of their settings (see the service's config). */
interface ActionsSettings {
  /** A run's wall limit: a claimed job is its claimer's this long and a grace. */
  wallMs: number
  /** Bytes of REST.call answers the process holds at once, for every run. */
  answerBudgetBytes: number
  /** The memory of one run: a script holds an answer in its heap. */
  memoryBytes: number
  retentionDays: number
}

export interface ActionsDeps {
  store: RecordStore
  engine: ScriptEngine
  /** How a run's REST.call reaches the API. */
  transport: RestTransport
  now: () => number
  log: ErrorLog
  settings: ActionsSettings
}

/** The actions' lifecycle, for whoever hosts them: start once serving, stop as closing starts, then close. */
export interface ActionsHost {
  start(): void
  stop(): void
  close(): Promise<void>
}

/** A claimed job is the claimer's for its run's wall limit and this long; then it is due again. */
const LEASE_GRACE_MS = 50_000
const DAY_MS = 24 * 60 * 60 * 1000

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

/** The runner of a run that `scope`'s call sets off: one level deeper. */
const runnerOf = (scope: Scope): Runner => ({
  userId: scope.userId,
  environmentId: scope.environmentId,
  depth: scope.actionDepth + 1,
})

/** Server scripts on documents: before-write, after-write (queued jobs) and manual runs, and their records. */
export function createActions({ store, engine, transport, now, log, settings }: ActionsDeps): Actions & ActionsHost {
  const budget = new AnswerBudget(settings.answerBudgetBytes)
  /**
   * A script holds an answer in its heap: half of it at most, so the script can still use what it got; and no
   * more than the whole budget, or it could never be read.
   */
  const maxAnswerBytes = Math.min(Math.floor(settings.memoryBytes * 0.5), budget.total)
  const retentionMs = settings.retentionDays * DAY_MS
  const runs = DOCUMENTS_COLLECTIONS.actionRuns.in(store)
  const rest = restCalls({ transport, budget, maxAnswerBytes })
  const recorder = runRecorder(store, log)
  const retention = runRetention(store, now, log)
  const record = (facts: RunFacts) => runRecord(facts, now(), retentionMs)

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
    signal?: AbortSignal,
  ): Promise<{ runId: string; outcome: RunOutcome; writes: ActionRunWrite[] }> {
    const runId = newObjectId()
    // Its token is the platform's `authToken.accessToken`: the run's rights, for the run's wall time at most.
    const delegation = delegate({ ...runner, ttlMs: settings.wallMs })
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
          serverDocument: { ...document, _documentDefinitionName: definition.name },
          environmentId: runner.environmentId,
          authToken: { accessToken: delegation.token, tokenType: 'Bearer' },
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
      return { runId, outcome, writes: calls.writes }
    } finally {
      // A write not committed by now is refused (its scope's signal is the delegation's): the record waits for
      // the answers of those under way, so it lists every write that committed.
      delegation.release()
      ended.abort()
      await Promise.allSettled(calls.pending)
    }
  }

  const jobs = afterWriteJobs({
    store,
    now,
    log,
    leaseMs: settings.wallMs + LEASE_GRACE_MS,
    execute: (runner, definition, action, trigger, document, previous) =>
      execute(runner, definition, action, trigger, document, previous, null),
    record,
  })

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
      const runner = runnerOf(scope)
      const { runId, outcome, writes } = await execute(
        runner,
        definition,
        action,
        trigger,
        proposed,
        previous,
        null,
        scope.signal,
      )
      if (outcome.status === 'error' && outcome.error.kind === 'busy') throw busy()
      const returned = outcome.status === 'ok' ? outcome.result : undefined
      // Only an object changes the document: anything else is a mistake in the script, not a silent no-op.
      const invalid = returned !== undefined && returned !== null && !isFieldsObject(returned)
      const failure = invalid
        ? { kind: 'result', message: `a ${trigger} action returns an object (the new fields) or nothing` }
        : undefined
      const facts = { runId, runner, definition, documentId: proposed._id, action, trigger, outcome, writes }
      recorder.record(record({ ...facts, attempt: 1, failure }))
      if (outcome.status !== 'ok') throw runError(action, outcome, runId)
      if (failure) throw fail('action_failed', `Action "${action.name}" failed (result): ${failure.message}`)
      return trigger === 'beforeDelete' || !isFieldsObject(returned) ? undefined : returned
    },

    enqueue: jobs.enqueue,

    dispatch: jobs.dispatch,

    async manual(scope, definition, action, document, input) {
      checkActionDepth(scope.actionDepth, `Action "${action.name}"`)
      const runner = runnerOf(scope)
      const { runId, outcome, writes } = await execute(
        runner,
        definition,
        action,
        'manual',
        document,
        null,
        input,
        scope.signal,
      )
      if (outcome.status === 'error' && outcome.error.kind === 'busy') throw busy()
      const facts = { runId, runner, definition, documentId: document._id, action, trigger: 'manual' as const }
      recorder.record(record({ ...facts, outcome, writes, attempt: 1 }))
      if (outcome.status !== 'ok') throw runError(action, outcome, runId)
      return { runId, result: outcome.result ?? null }
    },

    async runs(definition, { action, documentId, status, limit, after }) {
      // This process's own runs are readable as soon as their call answered.
      await recorder.recorded()
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
      jobs.forget(definition._id)
      await retention.drop(definition)
    },

    sweep: retention.sweep,

    start() {
      jobs.start()
      retention.start()
    },

    stop() {
      jobs.stop()
      retention.stop()
    },

    async close() {
      await jobs.close()
      await retention.close()
      await recorder.recorded()
      await engine.close()
    },
  }
}
