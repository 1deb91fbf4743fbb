// The console's only door to Quire: the public HTTP API, same origin, relative paths. Works the same whether
// the gateway mounts the services in-process or proxies them.

const TOKEN = 'quire.console.token'
const ENVIRONMENT = 'quire.console.environment'

export interface Session {
  token: string
  userId: string
}

export const session = {
  get(): Session | null {
    const raw = sessionStorage.getItem(TOKEN)
    return raw ? (JSON.parse(raw) as Session) : null
  },
  set(value: Session | null) {
    if (value) sessionStorage.setItem(TOKEN, JSON.stringify(value))
    else sessionStorage.removeItem(TOKEN)
  },
}

/** The environment is remembered across visits: it is what a user types when the API cannot list theirs. */
export const environment = {
  get: (): string => localStorage.getItem(ENVIRONMENT) ?? '',
  set: (value: string) => localStorage.setItem(ENVIRONMENT, value),
}

/** An answer with `status: "error"`: `userDescription` is what the console shows. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly userDescription: string,
  ) {
    super(userDescription || description || code)
  }
}

interface ErrorBody {
  error?: string
  description?: string
  userDescription?: string
}

export interface Page<T> {
  data: T[]
  pagination?: { hasNext?: boolean; hasPrevious?: boolean; next?: string; total?: number }
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const current = session.get()
  const env = environment.get()
  return {
    ...(current ? { authorization: `Bearer ${current.token}` } : {}),
    ...(env ? { 'environment-id': env } : {}),
    ...extra,
  }
}

export function toError(status: number, body: unknown): ApiError {
  const error = (body ?? {}) as ErrorBody
  return new ApiError(
    status,
    error.error ?? 'http_error',
    error.description ?? `HTTP ${status}`,
    error.userDescription ?? error.description ?? `The server answered ${status}`,
  )
}

/** Signed-out listeners: a 401 on any call means the session is over. */
const onUnauthorized = new Set<() => void>()
export const whenUnauthorized = (listener: () => void) => onUnauthorized.add(listener)

async function send(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? null : JSON.stringify(body),
  })
  const text = await res.text()
  const parsed: unknown = text ? JSON.parse(text) : null
  if (!res.ok) {
    const error = toError(res.status, parsed)
    if (res.status === 401 && error.code === 'unauthorized' && !path.startsWith('/auth/')) {
      onUnauthorized.forEach((listener) => listener())
    }
    throw error
  }
  return parsed
}

/** `data` of an enveloped answer. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return ((await send(method, path, body)) as { data: T }).data
}

/** The whole answer: lists keep their `pagination`; GET of one document is bare. */
export const raw = <T>(method: string, path: string, body?: unknown): Promise<T> =>
  send(method, path, body) as Promise<T>

export const q = (value: string) => encodeURIComponent(value)
