import { randomBytes } from 'node:crypto'
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { isInjection } from 'light-my-request'
import { fail } from '@quire/service-kit'

/** Who a delegation acts for: a user, in one environment, at a depth of nested actions. */
export interface DelegationGrant {
  readonly userId: string
  readonly environmentId: string
  /** How many actions deep the calls made with it are (1 for an action a request set off). */
  readonly depth: number
}

export interface Delegation {
  /** The headers a call made with it sends: `authorization: Delegated <handle>` and `environment-id`. */
  readonly headers: { readonly authorization: string; readonly 'environment-id': string }
  /** Aborted by `release`: work a call made with it started (a queued nested run, a pending write) stops. */
  readonly signal: AbortSignal
  /** Ends it: the handle is refused from then on and `signal` aborts. */
  release(): void
}

const DELEGATED_PREFIX = 'Delegated '

/**
 * Live delegations, by handle. Module-level: every auth plugin of this process (each service mounted in the
 * gateway registers its own) accepts them, and nothing outside the process's memory ever holds a handle.
 */
const grants = new Map<string, LiveGrant>()

/** A grant in force: when it was made (sessions ended after it end it too) and the signal its release aborts. */
export type LiveGrant = DelegationGrant & { readonly issuedAt: number; readonly signal: AbortSignal }

/**
 * Lets in-process calls act as `userId` in `environmentId` (and nowhere else) until `release`: what a server
 * script's REST.call sends. The handle is 32 random bytes; requests carry it in `authorization`, which the
 * logger redacts.
 */
export function delegate(grant: DelegationGrant): Delegation {
  const handle = randomBytes(32).toString('base64url')
  const ended = new AbortController()
  grants.set(handle, {
    userId: grant.userId,
    environmentId: grant.environmentId,
    depth: grant.depth,
    issuedAt: Date.now(),
    signal: ended.signal,
  })
  return {
    headers: { authorization: `${DELEGATED_PREFIX}${handle}`, 'environment-id': grant.environmentId },
    signal: ended.signal,
    release: () => {
      grants.delete(handle)
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
