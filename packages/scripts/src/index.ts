/**
 * Server scripts: guest JavaScript runs in QuickJS (WebAssembly) inside a pool of worker threads, never on the
 * main event loop, with CPU, memory, REST.call, output and wall-clock limits.
 */

export interface ScriptLimits {
  /** Guest CPU time of one run, ms (time spent waiting for REST.call answers does not count). Default 100. */
  cpuMs: number
  /** QuickJS heap of one run, bytes. Default 16 MiB. */
  memoryBytes: number
  /** REST.call invocations per run. Default 25. */
  restCalls: number
  /** Captured console output per run, bytes (past it: truncated, marked); the result's JSON beyond it fails the run. Default 64 KiB. */
  outputBytes: number
  /** Whole run including REST.call waits, ms. Default 10_000. */
  wallMs: number
}

export interface RestRequest {
  endpoint: string
  method: string
  headers: Record<string, string>
  body?: unknown
}

export interface RestAnswer {
  status: number
  headers: Record<string, string>
  body: unknown
}

export interface LogLine {
  level: 'log' | 'info' | 'warn' | 'error'
  message: string
}

export interface RunRequest {
  source: string
  /** Fairness key (the environment id): runs queue per tenant and tenants are served in turn. */
  tenant: string
  /** JSON-serializable values set as read-only-ish globals (e.g. serverDocument, environmentId, context). Names must be identifiers. */
  globals: Record<string, unknown>
  /** Performs a REST.call for the guest (the host decides who it runs as). Rejections become guest exceptions. */
  rest: (request: RestRequest) => Promise<RestAnswer>
  limits?: Partial<ScriptLimits>
}

interface RunStats {
  logs: LogLine[]
  durationMs: number
  cpuMs: number
  restCalls: number
}

export type RunErrorKind = 'exception' | 'cpu' | 'memory' | 'rest_calls' | 'output' | 'wall' | 'crash' | 'busy'

export type RunOutcome =
  | ({ status: 'ok'; result: unknown } & RunStats)
  | ({ status: 'refused'; message: string; code?: string } & RunStats)
  | ({ status: 'error'; error: { kind: RunErrorKind; message: string } } & RunStats)

export interface EngineOptions {
  workers?: number
  limits?: Partial<ScriptLimits>
  queuePerTenant?: number
  concurrentPerTenant?: number
}

export const DEFAULT_LIMITS: ScriptLimits = {
  cpuMs: 100,
  memoryBytes: 16 * 1024 * 1024,
  restCalls: 25,
  outputBytes: 64 * 1024,
  wallMs: 10_000,
}

export class ScriptEngine {
  constructor(options: EngineOptions = {}) {
    void options
  }

  /** Parses without running (in a worker). `line` when known. Sources over 64 KiB are refused here too. */
  async compile(source: string): Promise<{ ok: true } | { ok: false; message: string; line?: number }> {
    void source
    throw new Error('@quire/scripts: not implemented yet')
  }

  /** Never rejects for guest faults; only for programming errors. */
  async run(request: RunRequest): Promise<RunOutcome> {
    void request
    throw new Error('@quire/scripts: not implemented yet')
  }

  async close(): Promise<void> {}
}
