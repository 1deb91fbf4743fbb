/**
 * `REST.call(endpoint, method, headers, body)` for scripts: the same relative path, method, headers and body
 * as a plain HTTP call. Resolves to the parsed JSON body (text when not JSON) and never throws on 4xx/5xx;
 * `lastStatus` holds the HTTP status. A script context presets a default token and environment.
 */

export interface TransportRequest {
  method: string
  /** Absolute path with query string, e.g. `/api/v2/users?limit=1`. */
  path: string
  headers: Record<string, string>
  body?: string
}

export interface TransportResponse {
  status: number
  contentType: string
  body: string
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>
}

/** The part of a Fastify instance the in-process transport uses. */
export interface Injectable {
  inject(options: { method: string; url: string; headers: Record<string, string>; payload?: string }): PromiseLike<{
    statusCode: number
    headers: Record<string, string | string[] | number | undefined>
    body: string
  }>
}

/** In-process: `app.inject`, no socket. */
export const injectTransport = (app: Injectable): Transport => ({
  async send({ method, path, headers, body }) {
    const res = await app.inject({ method, url: path, headers, ...(body === undefined ? {} : { payload: body }) })
    return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body }
  },
})

/** Over HTTP: `fetch` against a base URL, each call bounded by `timeoutMs`. */
export const httpTransport = (baseUrl: string, options: { timeoutMs?: number } = {}): Transport => ({
  async send({ method, path, headers, body }) {
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    })
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() }
  },
})

export interface RestDefaults {
  /** Sent as `Authorization: Bearer <token>` unless the call gives its own Authorization header. */
  token?: string
  /** Sent as `environment-id` unless the call gives its own. */
  environmentId?: string
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

export class Rest {
  /** HTTP status of the last completed call. */
  lastStatus = 0

  constructor(
    private readonly transport: Transport,
    private readonly defaults: RestDefaults = {},
  ) {}

  async call(
    endpoint: string,
    method = 'GET',
    headers: Record<string, string> = {},
    body?: unknown,
  ): Promise<JsonValue> {
    const sent: Record<string, string> = { accept: 'application/json' }
    if (this.defaults.token) sent.authorization = `Bearer ${this.defaults.token}`
    if (this.defaults.environmentId) sent['environment-id'] = this.defaults.environmentId
    for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = value
    let payload: string | undefined
    if (body !== undefined && body !== null) {
      payload = typeof body === 'string' ? body : JSON.stringify(body)
      sent['content-type'] ??= 'application/json'
    }
    const path = `/${endpoint.replace(/^\/+/, '')}`
    const res = await this.transport.send({ method: method.toUpperCase(), path, headers: sent, body: payload })
    this.lastStatus = res.status
    if (!res.contentType.includes('json') || res.body === '') return res.body
    try {
      return JSON.parse(res.body) as JsonValue
    } catch {
      return res.body
    }
  }
}
