import { Type, type Static } from '@sinclair/typebox'
import { CommonConfigSchema, type CommonConfig } from '@quire/service-kit'

/** What only the documents service reads; the gateway merges it into its own schema to mount the service. */
export const DocumentsConfigSchema = Type.Object({
  QUIRE_S3_ENDPOINT: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Set to keep attachment files in MinIO / S3 instead of the data dir (host name, e.g. localhost).',
    }),
  ),
  QUIRE_S3_PORT: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 65535, description: 'S3 port (e.g. 9000 for MinIO).' }),
  ),
  QUIRE_S3_USE_SSL: Type.Boolean({ default: false, description: 'Speak HTTPS to the S3 endpoint.' }),
  QUIRE_S3_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1, description: 'S3 access key.' })),
  QUIRE_S3_SECRET_KEY: Type.Optional(Type.String({ minLength: 1, description: 'S3 secret key.' })),
  QUIRE_S3_BUCKET: Type.String({
    minLength: 3,
    maxLength: 63,
    default: 'quire',
    description: 'Bucket for attachment files; the documents service creates it when missing.',
  }),
  QUIRE_S3_REGION: Type.String({ default: 'us-east-1', description: 'S3 region.' }),
  QUIRE_MAX_FILE_SIZE: Type.Integer({
    minimum: 1,
    default: 100 * 1024 * 1024,
    description: 'Largest attachment in bytes.',
  }),
  QUIRE_MAX_FILES: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 10,
    description: 'Most files in one upload call.',
  }),
  QUIRE_BULK_BODY_LIMIT: Type.Integer({
    minimum: 1024,
    default: 16 * 1024 * 1024,
    description: 'Largest body of a bulk documents call (POST .../documents/bulk, up to 1000 operations), in bytes.',
  }),
  QUIRE_IMPORT_BODY_LIMIT: Type.Integer({
    minimum: 1024,
    default: 64 * 1024 * 1024,
    description: 'Largest body of a documents import (POST .../documents/import), in bytes; spooled to disk.',
  }),
  QUIRE_IMPORT_MAX_ROWS: Type.Integer({
    minimum: 1,
    maximum: 10_000_000,
    default: 100_000,
    description: 'Most records in one documents import.',
  }),
  QUIRE_TRANSFERS_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 2,
    description:
      'Document imports and exports of one environment in progress at once, per server; past it 429 rate_limited.',
  }),
  QUIRE_SCRIPT_GATEWAY_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        "Where scripts' REST.calls go when the services run apart, e.g. http://gateway:8080 (with QUIRE_RUN_TOKEN_KEY shared); unset: in-process, this server's routes.",
    }),
  ),
  QUIRE_SCRIPT_WORKERS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 64,
      description: 'Worker threads running action scripts (default: CPUs - 1, from 2 to 4; started at first use).',
    }),
  ),
  QUIRE_SCRIPT_CPU_MS: Type.Integer({
    minimum: 1,
    maximum: 60_000,
    default: 100,
    description: 'CPU time of one action run, in ms (waiting for REST.call answers does not count).',
  }),
  QUIRE_SCRIPT_MEMORY_MB: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 16,
    description: 'Memory of one action run (its JavaScript heap), in MiB; a REST.call answer may use half of it.',
  }),
  QUIRE_SCRIPT_REST_CALLS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 25,
    description: 'REST.call invocations of one action run.',
  }),
  QUIRE_SCRIPT_OUTPUT_KB: Type.Integer({
    minimum: 1,
    maximum: 16_384,
    default: 64,
    description: 'Console output kept of one action run, in KiB (past it: truncated); also the largest result.',
  }),
  QUIRE_SCRIPT_WALL_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 10_000,
    description: 'Wall time of one action run, in ms, REST.call waits included.',
  }),
  QUIRE_SCRIPT_ANSWER_BUDGET_MB: Type.Integer({
    minimum: 1,
    maximum: 65_536,
    default: 64,
    description:
      'REST.call answers all action runs of the process may hold at once, in MiB; a call waits for room for its answer.',
  }),
  QUIRE_SCRIPT_CONCURRENT_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 4,
    description: 'Action runs of one environment in progress at once; the others wait in its queue.',
  }),
  QUIRE_SCRIPT_QUEUE_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 64,
    description: 'Action runs of one environment that may wait; past it a run is refused (503 scripts_busy).',
  }),
  QUIRE_ACTION_RUN_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 7,
    description: 'Days a record of an action run is kept (GET .../action-runs).',
  }),
  QUIRE_WEBHOOKS_ALLOW_PRIVATE: Type.Boolean({
    default: false,
    description:
      'Let webhooks reach private, loopback, link-local and other non-public addresses (a trusted network, tests); ' +
      'off: refused at registration when written as an address, and at every delivery whatever the name resolves to.',
  }),
  QUIRE_WEBHOOKS_SECRETS_KEY: Type.Optional(
    Type.String({
      minLength: 44,
      maxLength: 45,
      description:
        "Key sealing webhook signing secrets at rest: 32 bytes in base64 (`openssl rand -base64 32`), the same for every documents replica; unset: the data dir's generated secrets key (all-in-one server). Without either, webhooks cannot be created.",
    }),
  ),
  QUIRE_WEBHOOKS_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 20,
    description: 'Webhooks one environment may have (409 webhook_limit_reached past it).',
  }),
  QUIRE_WEBHOOK_WAITING_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 10_000,
    description:
      'Deliveries of one environment that may wait; past it a change is still written, its delivery recorded failed (queue_full).',
  }),
  QUIRE_WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 32,
    description: 'Deliveries in progress at once in one process.',
  }),
  QUIRE_WEBHOOK_CONCURRENCY_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 4,
    description:
      "Deliveries of one environment in progress at once in one process: a slow endpoint holds only its tenant's.",
  }),
  QUIRE_WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 10_000,
    description: 'Time one delivery attempt may take (connection, answer headers and the bounded answer read), in ms.',
  }),
  QUIRE_WEBHOOK_RETRY_HOURS: Type.Integer({
    minimum: 0,
    maximum: 168,
    default: 24,
    description: 'Hours a failing delivery is retried with exponential backoff (10 s doubling, at most 1 h apart).',
  }),
  QUIRE_WEBHOOK_DELIVERY_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 7,
    description: 'Days a delivered or failed delivery is kept (GET /api/v2/webhooks/{id}/deliveries).',
  }),
  QUIRE_CHANGE_LOG_RETENTION_HOURS: Type.Integer({
    minimum: 1,
    maximum: 8760,
    default: 24,
    description: 'Hours an entry of the change log is kept: a subscriber may resume from an event this old.',
  }),
  QUIRE_CHANGE_LOG_MAX_ENTRIES: Type.Integer({
    minimum: 100,
    maximum: 100_000_000,
    default: 100_000,
    description: 'Entries of the change log kept per environment (the oldest go first, in bounded sweeps).',
  }),
  QUIRE_CHANGE_FEED_PER_USER: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 10,
    description: 'Open change subscriptions of one user in one environment, per server (past it: 429).',
  }),
  QUIRE_CHANGE_FEED_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 2000,
    description: 'Open change subscriptions of one environment, per server (past it: 429 rate_limited).',
  }),
  QUIRE_CHANGE_FEED_BUFFER: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 256,
    description:
      'Events waiting for a slow subscriber; past it the stream ends with a `resume` event (reconnect with Last-Event-ID).',
  }),
  QUIRE_CHANGE_FEED_HEARTBEAT_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 25,
    description: 'Seconds between heartbeats of a change stream; each also re-checks the subscriber token and access.',
  }),
  QUIRE_CHANGE_FEED_RECHECK_MS: Type.Integer({
    minimum: 0,
    maximum: 3_600_000,
    default: 5000,
    description: 'An event re-checks its subscriber, token and access when the last check is older than this, in ms.',
  }),
  QUIRE_CHANGE_FEED_POLL_MS: Type.Integer({
    minimum: 10,
    maximum: 60_000,
    default: 200,
    description: 'How often the change log is read for writes of other processes and replicas, in ms.',
  }),
  QUIRE_UPLOAD_DIR: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Where uploads are spooled on their way to the file store (default: the OS temp dir).',
    }),
  ),
})
/** What the app reads: its own variables, and of the common ones the caller rate limit (absent: off) and queue. */
export type DocumentsConfig = Static<typeof DocumentsConfigSchema> &
  Partial<Pick<CommonConfig, 'QUIRE_CALLER_RATE_LIMIT_PER_MINUTE' | 'QUIRE_WORK_QUEUE_PER_ENVIRONMENT'>>

export const ConfigSchema = Type.Composite([CommonConfigSchema, DocumentsConfigSchema])

/** The MinIO/S3 settings when an endpoint is configured; the local disk adapter otherwise. */
export function s3Options(config: DocumentsConfig) {
  if (!config.QUIRE_S3_ENDPOINT) return undefined
  return {
    endPoint: config.QUIRE_S3_ENDPOINT,
    port: config.QUIRE_S3_PORT,
    useSSL: config.QUIRE_S3_USE_SSL,
    accessKey: config.QUIRE_S3_ACCESS_KEY ?? '',
    secretKey: config.QUIRE_S3_SECRET_KEY ?? '',
    bucket: config.QUIRE_S3_BUCKET,
    region: config.QUIRE_S3_REGION,
  }
}
