// The console's only door to Quire: the public HTTP API, same origin, relative paths. Works the same whether
// the gateway mounts the services in-process or proxies them.
import { createQuireClient, type operations, type QuireClient } from '@quire/client'

const SESSION = 'quire.console.session'
const ENVIRONMENT = 'quire.console.environment'
/** Renew this long before the access token expires, so a call never races its expiry. */
const RENEW_AHEAD_MS = 60_000

export interface Session {
  token: string
  userId: string
  refreshToken: string
  /** Epoch ms when the access token expires. */
  expiresAt: number
}

/** What a session is made of in `/auth/sessions` and `/auth/sessions/refresh` answers. */
type SessionAnswer = Pick<Data<'openSession'>, 'accessToken' | 'userId' | 'expiresIn' | 'refreshToken'>

export const toSession = (answer: SessionAnswer): Session => ({
  token: answer.accessToken,
  userId: answer.userId,
  refreshToken: answer.refreshToken,
  expiresAt: Date.now() + answer.expiresIn * 1000,
})

const sessionListeners = new Set<(value: Session | null) => void>()

/** In localStorage: every tab of the browser shares one session, and a renewal in one serves them all. */
export const session = {
  get(): Session | null {
    const stored = localStorage.getItem(SESSION)
    return stored ? (JSON.parse(stored) as Session) : null
  },
  set(value: Session | null) {
    if (value) localStorage.setItem(SESSION, JSON.stringify(value))
    else localStorage.removeItem(SESSION)
    sessionListeners.forEach((listener) => listener(value))
  },
  /** Called on every change, this tab's or another's (`storage` events). */
  subscribe(listener: (value: Session | null) => void): () => void {
    sessionListeners.add(listener)
    return () => sessionListeners.delete(listener)
  },
}

addEventListener('storage', (event) => {
  if (event.key === SESSION || event.key === null) sessionListeners.forEach((listener) => listener(session.get()))
})

/** The environment is remembered across visits: it is what a user types when the API cannot list theirs. */
export const environment = {
  get: (): string => localStorage.getItem(ENVIRONMENT) ?? '',
  set: (value: string) => localStorage.setItem(ENVIRONMENT, value),
}

/** An answer with `status: "error"`: `userDescription` is what the console shows, `reason` why when known. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly userDescription: string,
  ) {
    super(userDescription || description || code)
  }

  /**
   * The API's technical `description` where it says what to fix (which field, which rule) and the plain sentence
   * does not: the catalogue's `userDescription` of a validation error is the same for every mistake.
   */
  get reason(): string {
    const telling = this.status >= 400 && this.status < 500 && this.status !== 401
    return telling && this.description !== this.userDescription ? this.description : ''
  }
}

interface ErrorBody {
  error?: string
  description?: string
  userDescription?: string
}

/** The JSON body of an operation's success answer (200, else 201), as the API's OpenAPI document describes it. */
type Answer<K extends keyof operations> = (
  operations[K]['responses'] extends { 200: infer R }
    ? R
    : operations[K]['responses'] extends { 201: infer R }
      ? R
      : never
) extends { content: { 'application/json': infer B } }
  ? B
  : never

/** The `data` of an operation's answer: the views' wire types come from here, never copied by hand. */
export type Data<K extends keyof operations> = Answer<K> extends { data: infer D } ? D : never

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

/** Told when the session is over and could not be renewed: the page asks to sign in again in place. */
const expiredListeners = new Set<() => void>()
export const whenExpired = (listener: () => void) => {
  expiredListeners.add(listener)
  return () => expiredListeners.delete(listener)
}

let renewing: Promise<boolean> | null = null

/**
 * Gets the next access token with the refresh token; true when the session is good now. One renewal at a time
 * in this browser (a Web Lock across tabs): a tab that waited finds the token another tab already renewed.
 */
function renew(staleToken: string | undefined): Promise<boolean> {
  renewing ??= (async () => {
    const work = async (): Promise<boolean> => {
      const current = session.get()
      if (!current) return false
      if (current.token !== staleToken && current.expiresAt - Date.now() > RENEW_AHEAD_MS) return true
      const res = await fetch('/auth/sessions/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: current.refreshToken }),
      })
      if (res.ok) {
        session.set(toSession(((await res.json()) as { data: SessionAnswer }).data))
        return true
      }
      // Ended on the server (signed out everywhere, password changed) or lapsed: only a sign-in helps.
      if (res.status === 401 || res.status === 400) {
        session.set(null)
        expiredListeners.forEach((listener) => listener())
      }
      return false
    }
    try {
      return 'locks' in navigator ? await navigator.locks.request('quire.console.renew', work) : await work()
    } catch {
      return false
    } finally {
      renewing = null
    }
  })()
  return renewing
}

let timer: ReturnType<typeof setTimeout> | undefined
/** Renews ahead of the access token's expiry, in whichever tab's timer fires first. */
function scheduleRenewal(value: Session | null) {
  clearTimeout(timer)
  if (!value) return
  const delay = Math.max(value.expiresAt - Date.now() - RENEW_AHEAD_MS, 1000)
  timer = setTimeout(() => {
    void renew(value.token)
  }, delay)
}
session.subscribe(scheduleRenewal)
scheduleRenewal(session.get())

const JSON_TYPE = /[/+]json\b/

/** A body that is not the API's JSON (a proxy's HTML error page): said plainly, never `Unexpected token '<'`. */
function notTheApi(status: number): Response {
  return envelope(status, {
    error: 'not_the_api',
    description: `HTTP ${status} with a body that is not JSON`,
    userDescription:
      status >= 500
        ? `The server could not be reached properly (HTTP ${status}): something between you and Quire answered instead. Try again in a moment.`
        : `The server answered HTTP ${status} with a page that is not Quire's: a proxy between you and Quire may be misconfigured.`,
  })
}

const envelope = (status: number, body: ErrorBody) =>
  new Response(JSON.stringify({ status: 'error', ...body }), {
    status,
    headers: { 'content-type': 'application/json' },
  })

/** The API answers every error in JSON and never HTML: anything else came from something in between. */
function fromTheApi(res: Response): Response {
  const type = res.headers.get('content-type')
  if (!type || JSON_TYPE.test(type)) return res
  if (!res.ok || type.startsWith('text/html')) return notTheApi(res.ok ? 502 : res.status)
  return res
}

/** The session's token and the environment, as they are when the request leaves: a retry takes the renewed ones. */
function authorize(request: Request): string | undefined {
  for (const [name, value] of Object.entries(headers())) {
    if (!request.headers.has(name) || name === 'authorization') request.headers.set(name, value)
  }
  return session.get()?.token
}

/**
 * The fetch of every API call (the typed client's, the change feed's, the files'): it sends the session's token
 * and environment, and answers a 401 with one silent renewal and one retry.
 */
export async function apiFetch(request: Request): Promise<Response> {
  // Kept before the body is sent, to send it again after a renewal.
  const retry = request.clone()
  const sentWith = authorize(request)
  const res = await fetch(request)
  if (res.status !== 401 || !sentWith || new URL(request.url).pathname.startsWith('/auth/')) return fromTheApi(res)
  // A 401 is either a session that ended or a refusal some routes answer as 401 (installations to a member):
  // a renewal tells them apart. Once renewed, a second 401 is a refusal, shown as "not allowed".
  if (!(await renew(sentWith))) return fromTheApi(res)
  authorize(retry)
  const again = await fetch(retry)
  if (again.status !== 401) return fromTheApi(again)
  const refused = (await again.json().catch(() => ({}))) as ErrorBody
  return envelope(403, {
    error: 'forbidden',
    description: refused.description ?? 'HTTP 401',
    userDescription: 'You are not allowed to do this',
  })
}

/** The typed client (paths, bodies and answers from the API's OpenAPI document) over `apiFetch`. */
export const quire: QuireClient = createQuireClient({ baseUrl: location.origin, fetch: apiFetch })

/** A typed call's `data`, or its error as an `ApiError` (what the views show). */
export async function ok<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending
  if (!response.ok) throw toError(response.status, error)
  return data as T
}

/** The `data` of a typed call's enveloped answer. */
export const dataOf = async <T>(pending: Promise<{ data?: { data: T }; error?: unknown; response: Response }>) =>
  (await ok(pending)).data

/**
 * The whole answer of a GET by its address as text: for the lists that page with the answer's `pagination.next`,
 * a ready query string the typed client would have to take apart. The same `apiFetch`, so the renewal and the
 * errors are the same as the typed client's.
 */
export async function raw<T>(path: string): Promise<T> {
  const res = await apiFetch(new Request(path, { method: 'GET' }))
  const text = await res.text()
  const parsed: unknown = text ? JSON.parse(text) : null
  if (!res.ok) throw toError(res.status, parsed)
  return parsed as T
}

export const q = (value: string) => encodeURIComponent(value)
