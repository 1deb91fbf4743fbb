import type { Action, ActionRunWrite, ActionTrigger } from '@quire/contracts'
import type { RecordStore } from '@quire/records'
import type { RunOutcome } from '@quire/scripts'
import { DOCUMENTS_COLLECTIONS, type ActionRunRecord, type DefinitionRecord } from '../../collections.js'

/** Who an action runs as: the user who set it off, in its environment, one level deeper than their call. */
export interface Runner {
  userId: string
  environmentId: string
  depth: number
}

/** What a run's record says beyond its outcome. */
export interface RunFacts {
  runId: string
  runner: Runner
  definition: Pick<DefinitionRecord, '_id'>
  documentId: string
  action: Action
  trigger: ActionTrigger
  outcome: RunOutcome
  writes: ActionRunWrite[]
  attempt: number
  /** Why a run whose script succeeded counts as failed (a wrong result, a full queue). */
  failure?: { kind: string; message: string } | undefined
}

/** The record of one run, kept `retentionMs` from `now`. */
export function runRecord(facts: RunFacts, now: number, retentionMs: number): ActionRunRecord {
  const { runId, runner, definition, documentId, action, trigger, outcome, writes, attempt, failure } = facts
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

/** Manual and before-write run records wait this long, or until this many, to be written together. */
const RECORD_DELAY_MS = 50
const RECORD_BATCH = 200

/** Where failures to write records go. */
export interface ErrorLog {
  error(details: object, message: string): void
}

/**
 * Run records of manual and before-write runs, written without holding up the answer: gathered for a moment and
 * written in one transaction (one commit for many runs, instead of one each).
 */
export function runRecorder(store: RecordStore, log: ErrorLog) {
  const unrecorded: ActionRunRecord[] = []
  let timer: NodeJS.Timeout | undefined
  const recording = new Set<Promise<void>>()

  /** Writes the gathered run records; `recording` holds the write until it is done (the runs list awaits it). */
  function write(): void {
    clearTimeout(timer)
    timer = undefined
    const batch = unrecorded.splice(0)
    if (batch.length === 0) return
    const written = store
      .transaction(async (tx) => {
        const into = DOCUMENTS_COLLECTIONS.actionRuns.in(tx)
        for (const run of batch) await into.insertOne(run)
      })
      .catch((error: unknown) => log.error({ err: error, runs: batch.length }, 'action runs not recorded'))
      .finally(() => recording.delete(written))
    recording.add(written)
  }

  return {
    /** Stores a run record soon, without making the answer wait for it. */
    record(run: ActionRunRecord): void {
      unrecorded.push(run)
      if (unrecorded.length >= RECORD_BATCH) write()
      else timer ??= setTimeout(write, RECORD_DELAY_MS).unref()
    },
    /** Resolves once every run recorded so far is written. */
    async recorded(): Promise<void> {
      write()
      await Promise.all(recording)
    },
  }
}
