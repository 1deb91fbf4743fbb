import { Type, type Static, type TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/**
 * Reads an app's configuration from environment variables named as the schema's keys (`QUIRE_PORT`, ...):
 * converts strings to the declared types, applies defaults, and lists every bad variable at once.
 */
export function loadConfig<T extends TObject>(schema: T, env: NodeJS.ProcessEnv = process.env): Static<T> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(schema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const value = Value.Default(schema, Value.Convert(schema, raw))
  const problems = [...Value.Errors(schema, value)].map((e) => `${e.path.slice(1) || 'config'}: ${e.message}`)
  if (problems.length > 0) throw new ConfigError(problems)
  return value as Static<T>
}

/** Variables every Quire process reads. */
export const CommonConfigSchema = Type.Object({
  QUIRE_HOST: Type.String({ default: '0.0.0.0' }),
  QUIRE_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  QUIRE_LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  QUIRE_DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  QUIRE_MONGO_URL: Type.Optional(Type.String({ pattern: '^mongodb(\\+srv)?://' })),
  QUIRE_MONGO_DB: Type.String({ minLength: 1, default: 'quire' }),
  QUIRE_JWT_PRIVATE_KEY: Type.Optional(Type.String({ minLength: 1 })),
  QUIRE_JWT_PUBLIC_KEY: Type.Optional(Type.String({ minLength: 1 })),
  QUIRE_BODY_LIMIT: Type.Integer({ minimum: 1024, default: 1024 * 1024 }),
  QUIRE_REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 30_000 }),
  /** Trust `x-forwarded-*` from the gateway: set on services that are reachable only through it. */
  QUIRE_TRUST_PROXY: Type.Boolean({ default: false }),
})
export type CommonConfig = Static<typeof CommonConfigSchema>
