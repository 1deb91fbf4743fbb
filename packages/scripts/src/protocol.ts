/** Messages between the engine (main thread) and its workers. Values cross as JSON text, never as live objects. */

import type { MessagePort } from 'node:worker_threads'
import type { LogLine, RunErrorKind, ScriptLimits } from './types.js'

/**
 * What a worker is started with: the engine's memory limit (its idle modules' bound), the watchdog's buffer, and
 * the port REST.call answers come by (read synchronously while the run waits: see SEGMENT_WAKE).
 */
export interface WorkerData {
  memoryBytes: number
  /** An Int32Array's buffer: see SEGMENT_SEQUENCE, SEGMENT_RUN, SEGMENT_CANCEL and SEGMENT_WAKE. */
  segment: SharedArrayBuffer
  answers: MessagePort
}

/** Incremented as each guest segment starts and ends: odd while one runs. */
export const SEGMENT_SEQUENCE = 0
/** The run whose segment runs (written before the sequence becomes odd). */
export const SEGMENT_RUN = 1
/**
 * A run the engine cancelled (-1: none), for the interrupt handler: a guest running a long segment ends now rather
 * than when the 'cancel' message is read after the segment.
 */
export const SEGMENT_CANCEL = 2
/**
 * Incremented by the engine after it posts a REST.call answer, or cancels a run: a worker whose run waits for an
 * answer (`Atomics.wait` on it, REST.call being synchronous) wakes and reads the answers port.
 */
export const SEGMENT_WAKE = 3
/** The buffer's length, in Int32 elements. */
export const SEGMENT_SLOTS = 4

export type CompileResult = { ok: true } | { ok: false; message: string; line?: number }

export type ToWorker =
  /** `globals`: each global's name and value as JSON. */
  | { type: 'run'; id: number; source: string; globals: [string, string][]; limits: ScriptLimits }
  | { type: 'compile'; id: number; source: string }
  /** The host no longer wants the run: end it now (`cancelled`). */
  | { type: 'cancel'; id: number }

/** The answer to a REST.call, on the answers port: `{status, headers, body}` as JSON, or `error` when the host rejected. */
export interface RestReply {
  id: number
  call: number
  answer?: string
  error?: string
}

/** What a finished run reports; the engine adds `durationMs`. */
export type WorkerOutcome =
  | { status: 'ok'; result: string | undefined }
  | { status: 'refused'; message: string; code?: string }
  | { status: 'error'; error: { kind: RunErrorKind; message: string } }

export type FromWorker =
  | { type: 'rest'; id: number; call: number; endpoint: string; method: string; headers: string; body?: string }
  | {
      type: 'done'
      id: number
      outcome: WorkerOutcome
      logs: LogLine[]
      durationMs: number
      cpuMs: number
      restCalls: number
      /** The WebAssembly memory the worker holds (its runs' QuickJS modules and the idle ones), for stats. */
      wasmBytes: number
    }
  | { type: 'compiled'; id: number; result: CompileResult }
  /** QuickJS is loaded: from now on the worker answers within its runs' limits. */
  | { type: 'ready' }
