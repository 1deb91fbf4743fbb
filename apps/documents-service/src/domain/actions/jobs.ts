import type { Scope } from '@quire/auth'
import type { Action, ActionRunWrite, ActionTrigger, Document } from '@quire/contracts'
import { ConflictError, newObjectId, type Filter, type RecordStore, type Transaction } from '@quire/records'
import type { RunOutcome } from '@quire/scripts'
import { DOCUMENTS_COLLECTIONS, type ActionJobRecord, type DefinitionRecord } from '../../collections.js'
import { actionsFor } from '../../lib/actions.js'
import type { ErrorLog, RunFacts, Runner } from './run-records.js'
import type { ActionRunRecord } from '../../collections.js'

/** Delays before an after-write job's next attempt; past the last, it is recorded failed. */
const BACKOFF_MS = [1000, 5000, 30_000, 120_000]
const MAX_ATTEMPTS = BACKOFF_MS.length + 1
const POLL_MS = 1000
/** After-write jobs run at once, in all; and per environment, so that one cannot hold every slot. */
const MAX_RUNNING = 16
const MAX_RUNNING_PER_ENVIRONMENT = 4
/** Jobs a definition may have waiting; past it writes still succeed but their after-write runs are dropped (recorded). */
const MAX_WAITING_PER_DEFINITION = 10_000
/** A definition's waiting count is read again this often; writes in between count themselves. */
const WAITING_COUNT_TTL_MS = 1000

export interface JobsDeps {
  store: RecordStore
  now: () => number
  log: ErrorLog
  /** How long a claimed job is its claimer's: its run's wall limit and a grace. */
  leaseMs: number
  /** Runs one action (see `createActions`). */
  execute(
    runner: Runner,
    definition: DefinitionRecord,
    action: Action,
    trigger: ActionTrigger,
    document: Document,
    previous: Document | null,
  ): Promise<{ runId: string; outcome: RunOutcome; writes: ActionRunWrite[] }>
  record(facts: RunFacts): ActionRunRecord
}

/** After-write jobs: queued in the write's transaction, claimed by lease, run, retried with backoff, recorded. */
export function afterWriteJobs({ store, now, log, leaseMs, execute, record }: JobsDeps) {
  const jobs = DOCUMENTS_COLLECTIONS.actionJobs.in(store)
  const definitions = DOCUMENTS_COLLECTIONS.definitions.in(store)
  const waiting = new Map<string, { count: number; readAt: number }>()
  const running = new Map<string, number>()
  const inFlight = new Set<Promise<void>>()
  let polling = false
  let pollAgain = false
  let closed = false
  let poller: NodeJS.Timeout | undefined
  const isoIn = (ms: number) => new Date(now() + ms).toISOString()

  async function waitingJobs(definitionId: string): Promise<number> {
    const at = now()
    const known = waiting.get(definitionId)
    if (known && at - known.readAt < WAITING_COUNT_TTL_MS) return known.count
    const count = await jobs.count({ definitionId })
    if (waiting.size > 10_000) waiting.clear()
    waiting.set(definitionId, { count, readAt: at })
    return count
  }

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
    const { runId, outcome, writes } = await execute(
      runner,
      definition,
      action,
      job.trigger,
      job.document,
      job.previous,
    )
    if (outcome.status === 'error' && outcome.error.kind === 'busy') {
      // Nothing ran: the attempt is given back.
      await jobs.updateOne(
        { _id: job._id },
        { $set: { dueOn: isoIn(POLL_MS), attempt: job.attempt - 1, _hash: newObjectId() } },
        { expectedHash: job._hash },
      )
      return
    }
    const retry = outcome.status === 'error' && job.attempt < MAX_ATTEMPTS
    const run = record({
      runId,
      runner,
      definition,
      documentId: job.documentId,
      action,
      trigger: job.trigger,
      outcome,
      writes,
      attempt: job.attempt,
    })
    try {
      await store.transaction(async (tx) => {
        const pending = DOCUMENTS_COLLECTIONS.actionJobs.in(tx)
        if (retry) {
          const dueOn = isoIn(BACKOFF_MS[job.attempt - 1] ?? BACKOFF_MS[BACKOFF_MS.length - 1]!)
          await pending.updateOne(
            { _id: job._id },
            { $set: { dueOn, _hash: newObjectId() } },
            { expectedHash: job._hash },
          )
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
        const filter: Filter = { dueOn: { $lte: new Date(now()).toISOString() } }
        if (full.length > 0) filter.environmentId = { $nin: full }
        const due = await jobs.find(filter, { sort: { dueOn: 1 }, limit: free })
        for (const job of due) {
          if (closed) break
          if ((running.get(job.environmentId) ?? 0) >= MAX_RUNNING_PER_ENVIRONMENT) {
            pollAgain = true
            continue
          }
          const claimed = { ...job, attempt: job.attempt + 1, dueOn: isoIn(leaseMs), _hash: newObjectId() }
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

  /** Queues the after-write actions of `trigger` in `tx`, the write's own transaction. */
  async function enqueue(
    tx: Transaction,
    scope: Scope,
    definition: DefinitionRecord,
    trigger: ActionTrigger,
    document: Document,
    previous: Document | null,
  ): Promise<void> {
    const triggered = actionsFor(definition, trigger)
    if (triggered.length === 0) return
    const known = await waitingJobs(definition._id)
    const at = new Date(now()).toISOString()
    for (const action of triggered) {
      const entry = waiting.get(definition._id)
      if (known >= MAX_WAITING_PER_DEFINITION) {
        // The write stands; the run it would have set off is recorded as dropped, for an administrator to see.
        const runner = { userId: scope.userId, environmentId: scope.environmentId, depth: scope.actionDepth + 1 }
        const dropped: RunOutcome = { status: 'ok', result: undefined, logs: [], durationMs: 0, cpuMs: 0, restCalls: 0 }
        const failure = {
          kind: 'queue_full',
          message: `more than ${MAX_WAITING_PER_DEFINITION} after-write runs of this definition are waiting`,
        }
        const run = record({
          runId: newObjectId(),
          runner,
          definition,
          documentId: document._id,
          action,
          trigger,
          outcome: dropped,
          writes: [],
          attempt: 1,
          failure,
        })
        await DOCUMENTS_COLLECTIONS.actionRuns.in(tx).insertOne(run)
        continue
      }
      if (entry) entry.count++
      await DOCUMENTS_COLLECTIONS.actionJobs.in(tx).insertOne({
        _id: newObjectId(),
        _hash: newObjectId(),
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
        dueOn: at,
        createdOn: at,
      })
    }
  }

  return {
    enqueue,
    dispatch,
    /** A definition is gone: its waiting count too. */
    forget(definitionId: string): void {
      waiting.delete(definitionId)
    },
    start(): void {
      // It never rejects: it logs its own failure.
      poller = setInterval(poll, POLL_MS).unref()
      // Jobs left by a previous process (a restart, a crash) are due already: they run now.
      setImmediate(poll)
    },
    stop(): void {
      closed = true
      clearInterval(poller)
    },
    /** Resolves once the jobs running have ended. */
    async close(): Promise<void> {
      await Promise.all(inFlight)
    },
  }
}
