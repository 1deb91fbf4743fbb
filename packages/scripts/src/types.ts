/** The engine's public types and default limits. */

export interface ScriptLimits {
  /** Guest CPU time of one run, ms (time spent waiting for REST.call answers does not count). Default 100. */
  cpuMs: number
  /** Memory of one run beyond the engine's 16 MiB baseline, bytes (the bound of its WebAssembly memory). Default 16 MiB. */
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
  /**
   * Performs a REST.call for the guest (the host decides who it runs as). Rejections become guest exceptions.
   * `signal` aborts when the run ends in any way: a call not yet under way must then never start.
   */
  rest: (request: RestRequest, signal: AbortSignal) => Promise<RestAnswer>
  /**
   * How many actions deep the run is: 1 (the default) for one a client's request set off, n + 1 for one a depth-n
   * run's call did; at most MAX_RUN_DEPTH.
   */
  depth?: number
  /** Aborted by the host when the run is no longer wanted (its caller's run ended): it ends `cancelled`. */
  signal?: AbortSignal
  limits?: Partial<ScriptLimits>
}

interface RunStats {
  logs: LogLine[]
  durationMs: number
  cpuMs: number
  restCalls: number
}

export type RunErrorKind =
  'exception' | 'cpu' | 'memory' | 'rest_calls' | 'output' | 'wall' | 'crash' | 'busy' | 'cancelled'

export type RunOutcome =
  | ({ status: 'ok'; result: unknown } & RunStats)
  | ({ status: 'refused'; message: string; code?: string } & RunStats)
  | ({ status: 'error'; error: { kind: RunErrorKind; message: string } } & RunStats)

export interface EngineOptions {
  /** Worker threads, each hosting one tenant's runs at a time. Default: CPUs - 1, 2 to 4. */
  workers?: number
  limits?: Partial<ScriptLimits>
  /** Runs of a tenant waiting at each depth; past it a run ends `busy` at once. Default 64. */
  queuePerTenant?: number
  /** Runs of a tenant in flight at each depth. Default 4. */
  concurrentPerTenant?: number
}

export const DEFAULT_LIMITS: ScriptLimits = {
  cpuMs: 100,
  memoryBytes: 16 * 1024 * 1024,
  restCalls: 25,
  outputBytes: 64 * 1024,
  wallMs: 10_000,
}

/** How many actions deep a run may be (`RunRequest.depth`): a depth-3 run's calls set off no run. */
export const MAX_RUN_DEPTH = 3

/** What the pool holds now, for metrics and tests. */
export interface EngineStats {
  workers: number
  running: number
  waiting: number
  /** The largest WebAssembly memory a live worker reported: its runs' QuickJS modules and its idle ones. */
  wasmBytes: number
}
