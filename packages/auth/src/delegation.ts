import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { isInjection } from 'light-my-request'
import { fail } from '@quire/service-kit'

/** Who a delegation acts for: a user, in one environment, at a depth of nested actions. */
export interface DelegationGrant {
  readonly userId: string
  readonly environmentId: string
  /** How many actions deep the calls made with it are (1 for an action a request set off). */
  readonly depth: number
  /** How long its `token` is accepted at most (the run's wall limit); its release ends it sooner. */
  readonly ttlMs?: number
}

export interface Delegation {
  /** The headers a call made with it sends: `authorization: Delegated <handle>` and `environment-id`. */
  readonly headers: { readonly authorization: string; readonly 'environment-id': string }
  /**
   * A bearer token of the same grant, for a script to send as `Authorization: Bearer` (the platform's
   * `authToken.accessToken`): signed by this process, expiring after `ttlMs`, refused once released.
   */
  readonly token: string
  /** Aborted by `release`: work a call made with it started (a queued nested run, a pending write) stops. */
  readonly signal: AbortSignal
  /** Ends it: the handle is refused from then on and `signal` aborts. */
  release(): void
}

const DELEGATED_PREFIX = 'Delegated '
/** Run tokens: `qrun.<payload>.<signature>`, told apart from access tokens (JWTs) and long-lived tokens at a glance. */
const RUN_TOKEN_PREFIX = 'qrun.'
const RUN_TOKEN = /^qrun\.([\w-]{1,512})\.([\w-]{43})$/
const DEFAULT_TTL_MS = 10_000
/** The key run tokens are signed with: this process's own unless the deployment shares one (`useRunTokenKey`). */
let signingKey: Buffer = randomBytes(32)
const sign = (payload: string) => createHmac('sha256', signingKey).update(payload).digest('base64url')
/** Names this process in its run tokens: it alone knows whether their runs still last. */
const issuer = randomBytes(12).toString('base64url')
/** The signal of a grant read from another process's run token: that process alone can end it. */
const NEVER_ENDS = new AbortController().signal

/**
 * Signs and verifies run tokens with `key` (at least 32 bytes), shared by the services of a deployment so that a
 * script's REST.calls through the gateway reach them all. Called once as a process starts.
 */
export function useRunTokenKey(key: Buffer): void {
  if (key.length < 32) throw new Error('the run token key must be at least 32 bytes')
  signingKey = key
}

/** What a run token says: its run, its issuer, the grant, when it was made and when it expires (ms). */
interface RunTokenClaims {
  r: string
  i: string
  u: string
  e: string
  d: number
  t: number
  x: number
}

/**
 * Live delegations, by handle. Module-level: every auth plugin of this process (each service mounted in the
 * gateway registers its own) accepts them, and nothing outside the process's memory ever holds a handle.
 */
const grants = new Map<string, LiveGrant>()
/** The same grants, by the run id their tokens carry (never the handle, which stays in this process). */
const runs = new Map<string, LiveGrant>()

/** A grant in force: when it was made (sessions ended after it end it too) and the signal its release aborts. */
export type LiveGrant = DelegationGrant & { readonly issuedAt: number; readonly signal: AbortSignal }

/**
 * Lets in-process calls act as `userId` in `environmentId` (and nowhere else) until `release`: what a server
 * script's REST.call sends. The handle is 32 random bytes; requests carry it in `authorization`, which the
 * logger redacts.
 */
export function delegate(grant: DelegationGrant): Delegation {
  const handle = randomBytes(32).toString('base64url')
  const run = randomBytes(16).toString('base64url')
  const issuedAt = Date.now()
  const claims: RunTokenClaims = {
    r: run,
    i: issuer,
    u: grant.userId,
    e: grant.environmentId,
    d: grant.depth,
    t: issuedAt,
    x: issuedAt + (grant.ttlMs ?? DEFAULT_TTL_MS),
  }
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
  const ended = new AbortController()
  const live: LiveGrant = {
    userId: grant.userId,
    environmentId: grant.environmentId,
    depth: grant.depth,
    issuedAt,
    signal: ended.signal,
  }
  grants.set(handle, live)
  runs.set(run, live)
  return {
    headers: { authorization: `${DELEGATED_PREFIX}${handle}`, 'environment-id': grant.environmentId },
    token: `${RUN_TOKEN_PREFIX}${payload}.${sign(payload)}`,
    signal: ended.signal,
    release: () => {
      grants.delete(handle)
      runs.delete(run)
      ended.abort()
    },
  }
}

/**
 * Whether a request was made in this process (`app.inject`, what REST.call sends) rather than read from a socket:
 * light-my-request builds its own request object, which no bytes from the network can produce. Nothing a client
 * sends (headers, addresses) takes part in the decision.
 */
const isInProcess = (request: FastifyRequest): boolean => isInjection(request.raw)

/**
 * The handle of the request's `Authorization: Delegated` header, or undefined when it has none. Such a header read
 * from a socket is 401: a handle only ever exists in this process's memory, so from outside it is a forgery, or
 * a leak being replayed.
 */
export function delegationHandle(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization
  if (!header?.startsWith(DELEGATED_PREFIX)) return undefined
  if (!isInProcess(request)) {
    throw fail(
      'unauthorized',
      'Authorization: Delegated is accepted only from an action of this process',
      'Please sign in again',
    )
  }
  return header.slice(DELEGATED_PREFIX.length)
}

/** `onRequest`: a delegation from the network is refused before any other hook reads the request (edge, services). */
export const refuseNetworkDelegation: onRequestAsyncHookHandler = async function refuseNetworkDelegation(request) {
  delegationHandle(request)
}

/** The grant behind a live handle, or undefined. */
export const delegated = (handle: string): LiveGrant | undefined => grants.get(handle)

/** Whether a bearer token is a run token (see `Delegation.token`), valid or not. */
export const isRunToken = (token: string): boolean => token.startsWith(RUN_TOKEN_PREFIX)

/**
 * The grant behind a run token: its signature holds and it has not expired; undefined otherwise. Made here, its
 * run must still last (released: refused at once); made by another process of the deployment (same key), it holds
 * until it expires, the run's wall limit at most. Unlike a `Delegated` handle it may come from the network: what
 * it opens is the grant's, never more.
 */
export function runTokenGrant(token: string): LiveGrant | undefined {
  const match = RUN_TOKEN.exec(token)
  if (!match) return undefined
  const [, payload = '', signature = ''] = match
  if (!timingSafeEqual(Buffer.from(sign(payload)), Buffer.from(signature))) return undefined
  let claims: Partial<RunTokenClaims>
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<RunTokenClaims>
  } catch {
    return undefined
  }
  const { r, i, u, e, d, t, x } = claims
  if (typeof x !== 'number' || x <= Date.now()) return undefined
  if (i === issuer) return typeof r === 'string' ? runs.get(r) : undefined
  if (typeof u !== 'string' || typeof e !== 'string' || typeof d !== 'number' || typeof t !== 'number') return undefined
  return { userId: u, environmentId: e, depth: d, issuedAt: t, signal: NEVER_ENDS }
}
