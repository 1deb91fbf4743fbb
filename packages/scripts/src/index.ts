/**
 * Server scripts: guest JavaScript runs in QuickJS (WebAssembly) inside a pool of worker threads, never on the
 * main event loop, with CPU, memory, REST.call, output and wall-clock limits.
 */

export { ScriptEngine } from './pool.js'
export {
  DEFAULT_LIMITS,
  MAX_RUN_DEPTH,
  type EngineOptions,
  type EngineStats,
  type LogLine,
  type RestAnswer,
  type RestRequest,
  type RunErrorKind,
  type RunOutcome,
  type RunRequest,
  type ScriptLimits,
} from './types.js'
