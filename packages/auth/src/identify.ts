import { fail, type SharedCounts } from '@quire/service-kit'
import type { Identity } from '@quire/identity'
import type { AccessTokenClaims, Caller, Identified } from './caller.js'
import { delegated, isRunToken, runTokenGrant, type LiveGrant } from './delegation.js'
import { VerifiedTokens } from './verified-tokens.js'

/** What a request presents. */
export interface Credentials {
  readonly authorization: string | undefined
  /** Its `Delegated` handle, if any; throws for one that came from the network (see `delegationHandle`). */
  readonly delegationHandle: () => string | undefined
  /** The client's address: failed identifications are counted against it. */
  readonly address: string
}

/** The access-token signature, as @fastify/jwt checks it. */
interface TokenSignature {
  decode(token: string): { exp?: unknown } | null
  verify(token: string): AccessTokenClaims & { exp?: number }
}

interface IdentifyDeps {
  identity: Identity
  signature: TokenSignature
  /** Requests per minute per verified caller, and failed identifications per minute per address; 0 = no limit. */
  perMinute: number
  /** Where the budgets are counted: this process, or every process of the server (one budget, not one each). */
  counts: SharedCounts
}

const MINUTE_MS = 60_000

/** RFC 9110 §11.1: the scheme is case-insensitive (`bearer`, `BEARER`); one space before the token. */
const BEARER = /^bearer /i
const TOKEN_FORM = /^[\w.~+/=-]{16,4096}$/

/** The token of an `Authorization: Bearer` header, else ''. */
const bearerToken = (header: string | undefined): string =>
  header && BEARER.test(header) ? header.slice('bearer '.length) : ''

/** A server script's call: a `Delegated` handle, or a run token. */
export const isScriptCall = (credentials: Credentials): boolean =>
  isRunToken(bearerToken(credentials.authorization)) || credentials.delegationHandle() !== undefined

const unauthorized = (why: string) => fail('unauthorized', why, 'Please sign in again')

/**
 * Who a request's credentials name, read again from `identity` at every call (a revocation applies at once):
 * `withinBudget` for a request, where `retryAfter` receives the seconds to wait when a budget refuses; `again`,
 * outside the budgets, to re-check credentials already let in (a long-lived stream's subscriber).
 */
export function createIdentify({ identity, signature, perMinute, counts }: IdentifyDeps) {
  const verified = new VerifiedTokens()

  /**
   * The claims of a token whose signature holds, or undefined. An expired one is refused on its unverified `exp`
   * first (refusing needs no trust): with the RSA check and fast-jwt's error, a request with an expired token
   * cost the server about three valid ones; refused on `exp`, little more than one.
   */
  function verifiedClaims(token: string): (AccessTokenClaims & { exp?: number }) | undefined {
    try {
      const exp = signature.decode(token)?.exp
      if (typeof exp === 'number' && exp * 1000 <= Date.now()) return undefined
      const claims = signature.verify(token)
      // Ours always carry a string; anything else never reaches a store filter.
      return claims.sid === undefined || typeof claims.sid === 'string' ? claims : undefined
    } catch {
      return undefined
    }
  }

  async function identify(credentials: Credentials): Promise<Identified> {
    const handle = credentials.delegationHandle()
    if (handle !== undefined) return identifyDelegated(delegated(handle))
    const token = bearerToken(credentials.authorization)
    if (isRunToken(token)) return identifyDelegated(runTokenGrant(token))
    // A token in the verified cache passed every check below when it was first seen.
    let claims = verified.get(token)
    if (!claims && !TOKEN_FORM.test(token)) throw unauthorized('Missing or malformed Authorization: Bearer token')
    let userId: string
    let issuedAt = Number.POSITIVE_INFINITY
    let sessionId: string | undefined
    let via: Caller['via'] = 'access-token'
    let environmentIds: readonly string[] | undefined
    if (claims || token.split('.').length === 3) {
      if (!claims) {
        claims = verifiedClaims(token)
        if (!claims) throw unauthorized('The access token is invalid or expired')
        verified.set(token, claims)
      }
      userId = claims.sub
      issuedAt = claims.t
      sessionId = claims.sid
    } else {
      const owner = await identity.longLivedToken(token)
      if (!owner) throw unauthorized('The token is invalid, revoked or expired')
      userId = owner.userId
      via = 'long-lived-token'
      environmentIds = owner.environmentIds
    }
    // Read from the store every time, like the user: a sign-out on any replica refuses the token on all at once.
    const [user, session] = await Promise.all([
      identity.user(userId),
      sessionId === undefined ? undefined : identity.session(sessionId),
    ])
    if (!user || issuedAt < user.sessionsValidAfter) throw unauthorized('The token is no longer valid')
    if (session !== undefined && session?.userId !== userId) {
      throw unauthorized('The session of this access token was signed out, ended or expired')
    }
    // A token minted by someone else carries what its minter could give, never the super-administrator's rights.
    const superAdministrator = user.superAdministrator && environmentIds === undefined
    return {
      userId,
      via,
      access: user,
      actionDepth: 0,
      superAdministrator,
      ...(environmentIds && { environmentIds }),
      ...(sessionId !== undefined && { sessionId }),
    }
  }

  /**
   * A server script's call (its delegation's handle in-process, or its run token): the user it acts for is read
   * again, as for a token; only its environment is open, and a super-administrator's rights stay out of it (whose
   * action it runs is another user's choice).
   */
  async function identifyDelegated(grant: LiveGrant | undefined): Promise<Identified> {
    if (!grant) throw unauthorized('The delegation is unknown or ended')
    const user = await identity.user(grant.userId)
    if (!user || grant.issuedAt < user.sessionsValidAfter) throw unauthorized('The delegated user is no longer valid')
    return {
      userId: grant.userId,
      via: 'action',
      access: user,
      actionDepth: grant.depth,
      superAdministrator: false,
      environmentIds: [grant.environmentId],
      signal: grant.signal,
    }
  }

  const rateLimited = (retryAfter: (seconds: number) => void, wait: number, what: string) => {
    retryAfter(wait)
    return fail('rate_limited', `Too many ${what}; retry in ${wait} s`, 'Too many requests; please wait and try again')
  }

  /**
   * A verified caller is counted by its user id (a new token of the same user shares the budget); a request whose
   * credentials fail is counted by its address, so a random Authorization header per request gets no fresh
   * budget, and an address past it is refused before any verification work.
   */
  async function withinBudget(credentials: Credentials, retryAfter: (seconds: number) => void): Promise<Identified> {
    if (perMinute === 0) return identify(credentials)
    const address = `caller:address:${credentials.address}`
    let wait = counts.refusedFor(address)
    if (wait > 0) throw rateLimited(retryAfter, wait, 'requests with invalid credentials')
    let identified: Identified
    try {
      identified = await identify(credentials)
    } catch (err) {
      await counts.take(address, perMinute, MINUTE_MS)
      throw err
    }
    wait = await counts.take(`caller:user:${identified.userId}`, perMinute, MINUTE_MS)
    if (wait > 0) throw rateLimited(retryAfter, wait, 'requests')
    return identified
  }

  return { withinBudget, again: identify }
}
