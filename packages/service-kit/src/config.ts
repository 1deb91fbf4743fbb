import { readFileSync } from 'node:fs'
import { Type, type Static, type TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/**
 * `process.env` after reading `file` (a `.env` in the working directory by default) into it: a variable already
 * in the environment wins over the file, and a missing file is no error. Node's own parser (20.12+).
 */
export function processEnvironment(file = '.env'): NodeJS.ProcessEnv {
  try {
    process.loadEnvFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  return process.env
}

/**
 * `NAME_FILE=/path` stands for `NAME=<that file's content>` (Docker secrets, key files); `NAME` wins. One final
 * line ending (`\n` or `\r\n`) is not part of the value: `echo` and editors add it, and a token read with it
 * would never match.
 */
const FILE_SUFFIX = '_FILE'
const FINAL_LINE_ENDING = /\r?\n$/

function valueOf(env: NodeJS.ProcessEnv, key: string, problems: string[]): string | undefined {
  const value = env[key]
  if (value !== undefined && value !== '') return value
  const file = env[`${key}${FILE_SUFFIX}`]
  if (file === undefined || file === '') return undefined
  try {
    return readFileSync(file, 'utf8').replace(FINAL_LINE_ENDING, '')
  } catch (error) {
    problems.push(`${key}${FILE_SUFFIX}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
    return undefined
  }
}

/**
 * Reads an app's configuration from environment variables named as the schema's keys (`QUIRE_PORT`, ...), or
 * from the file a `<NAME>_FILE` variable names (less one final line ending): converts strings to the declared
 * types, applies defaults, and lists every bad variable at once. Without `env`, the process environment completed
 * by `./.env`.
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = processEnvironment()): Static<T> {
  const raw: Record<string, unknown> = {}
  const problems: string[] = []
  for (const key of Object.keys(schema.properties)) {
    const value = valueOf(env, key, problems)
    if (value !== undefined) raw[key] = value
  }
  const value = Value.Default(schema, Value.Convert(schema, raw))
  problems.push(...[...Value.Errors(schema, value)].map((e) => `${e.path.slice(1) || 'config'}: ${e.message}`))
  if (problems.length > 0) throw new ConfigError(problems)
  return value as Static<T>
}

/** Variables every Quire process reads. Each `description` is what `.env.example` says of it. */
/** Of `QUIRE_WORK_QUEUE_PER_ENVIRONMENT`, also where an app's config leaves it out (an app built in a test). */
export const DEFAULT_WORK_QUEUE_PER_ENVIRONMENT = 128

export const CommonConfigSchema = Type.Object({
  QUIRE_HOST: Type.String({ default: '0.0.0.0', description: 'Address to listen on.' }),
  QUIRE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'Port to listen on.' }),
  QUIRE_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    {
      default: 'info',
      description: 'fatal, error, warn, info, debug, trace or silent. JSON lines, or readable ones on a terminal.',
    },
  ),
  QUIRE_DATA_DIR: Type.String({
    minLength: 1,
    default: './data',
    description: 'Embedded storage (records, local files, generated JWT keys) lives here.',
  }),
  QUIRE_PREWARM_MB: Type.Integer({
    minimum: 0,
    default: 1024,
    description:
      "The embedded store's file read into the kernel's page cache at start, up to this many MB (at most a quarter of memory), so the first requests do not wait on the disk; 0 = off.",
  }),
  QUIRE_MIN_FREE_DISK_MB: Type.Integer({
    minimum: 0,
    default: 64,
    description: 'GET /ready answers 503 while the disk of QUIRE_DATA_DIR has less free space than this (MB); 0 = off.',
  }),
  QUIRE_MONGO_URL: Type.Optional(
    Type.String({
      pattern: '^mongodb(\\+srv)?://',
      description: 'Set to keep records in MongoDB instead of the embedded store, e.g. mongodb://localhost:27017.',
    }),
  ),
  QUIRE_MONGO_DB: Type.String({ minLength: 1, default: 'quire', description: 'MongoDB database name.' }),
  QUIRE_JWT_PRIVATE_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'JWT signing key (PEM); only the users service signs. With the public key unset too, a pair is generated into $QUIRE_DATA_DIR/keys.',
    }),
  ),
  QUIRE_JWT_PUBLIC_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'JWT verification key (PEM). Given alone (no private key), the process verifies tokens only.',
    }),
  ),
  QUIRE_RUN_TOKEN_KEY: Type.Optional(
    Type.String({
      minLength: 44,
      description:
        "Base64 of 32 bytes or more, the same in every service (openssl rand -base64 32): they accept the run tokens of each other's server scripts. Unset: a process accepts its own only.",
    }),
  ),
  QUIRE_BODY_LIMIT: Type.Integer({
    minimum: 1024,
    default: 1024 * 1024,
    description: 'Largest JSON body in bytes (uploads have their own limits).',
  }),
  QUIRE_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 30_000,
    description: 'Milliseconds one request may take.',
  }),
  QUIRE_SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 0,
    default: 8000,
    description:
      "On SIGTERM/SIGINT, milliseconds requests in progress get to finish before their connections are ended (below docker stop's 10 s).",
  }),
  QUIRE_TRUST_PROXY: Type.Boolean({
    default: false,
    description: 'Take the client address from x-forwarded-for: set on services reachable only through the gateway.',
  }),
  QUIRE_CALLER_RATE_LIMIT_PER_MINUTE: Type.Integer({
    minimum: 0,
    default: 0,
    // Every service's auth plugin reads it (`callerRateLimitPerMinute`); the gateway limits the anonymous.
    description:
      'Requests per minute per signed-in user, and failed sign-ins per minute per address, per server; 0 = off.',
  }),
  QUIRE_WORK_QUEUE_PER_ENVIRONMENT: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: DEFAULT_WORK_QUEUE_PER_ENVIRONMENT,
    // Every service's work-account plugin reads it: in the all-in-one, the services share one store and its turns.
    description:
      'Costly store work (lists, counts, exports, writes) of one environment that may wait for its turn while ' +
      'environments share the server; past it the request is refused (429 rate_limited).',
  }),
  QUIRE_METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'Set to serve GET /metrics (Prometheus) to requests bearing `Authorization: Bearer <this token>`.',
    }),
  ),
})
export type CommonConfig = Static<typeof CommonConfigSchema>
