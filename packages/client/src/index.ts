import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { paths } from './schema.js'
import { subscribe, type Change, type SubscribeOptions, type Subscription } from './subscribe.js'

export interface QuireClientOptions {
  /** Where the gateway answers, e.g. `https://quire.example.com`. */
  baseUrl: string
  /** An access token from `/auth/login`, or a long-lived token. */
  token?: string
  /** Sent as `environment-id`: every `/api/v2` call but environments and the marketplace needs it. */
  environmentId?: string
  /** Another fetch (tests, proxies). */
  fetch?: ClientOptions['fetch']
}

/** A Quire client: every path, body, answer and error typed from the API's OpenAPI document. */
export type QuireClient = Client<paths> & {
  /** Subscribes to the changes of definition `ddId` (server-sent events), reconnecting with `Last-Event-ID`. */
  subscribe(ddId: string, options: SubscribeOptions, onEvent: (change: Change) => void | Promise<void>): Subscription
}

/** `openapi-fetch`'s client for Quire, sending the token and environment on every call. */
export function createQuireClient({ baseUrl, token, environmentId, fetch }: QuireClientOptions): QuireClient {
  const headers: Record<string, string> = {}
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (environmentId !== undefined) headers['environment-id'] = environmentId
  const connection = { baseUrl, headers, fetch: fetch ?? globalThis.fetch }
  return Object.assign(createClient<paths>({ baseUrl, headers, ...(fetch ? { fetch } : {}) }), {
    subscribe: (ddId: string, options: SubscribeOptions, onEvent: (change: Change) => void | Promise<void>) =>
      subscribe(connection, ddId, options, onEvent),
  })
}

export { createClient }
export type { components, operations, paths } from './schema.js'
export { SubscriptionRefused, type Change, type SubscribeOptions, type Subscription } from './subscribe.js'
