export { ApiError, fail } from './api-error.js'
export { errorBody, installErrorHandlers } from './error-handler.js'
export {
  ConfigError,
  loadConfig,
  processEnvironment,
  CommonConfigSchema,
  DEFAULT_WORK_QUEUE_PER_ENVIRONMENT,
  type CommonConfig,
} from './config.js'
export { renderEnvExample } from './env-example.js'
export { installHealth, NotReadyError, type ReadinessCheck } from './health.js'
export { diskSpaceCheck } from './disk-space.js'
export {
  createServer,
  serverOptionsOf,
  startServer,
  REQUEST_ID_HEADER,
  type App,
  type ServerOptions,
} from './server.js'
export { describeRoutes, openApiPlugin, type OpenApiDocument, type OpenApiOptions, type RouteAuth } from './openapi.js'
export { stdoutDestination, type LogDestination } from './log-destination.js'
export { mountService, type ServiceManifest } from './manifest.js'
export { lingerAfterAnswer } from './lingering-close.js'
export { sweepInChunks, type ChunkedSweep, type SweepCandidate } from './chunked-sweep.js'
export {
  countsOfPrimary,
  countsPrimary,
  localCounts,
  workerChannel,
  type CountsChannel,
  type SharedCounts,
} from './shared-counts.js'
