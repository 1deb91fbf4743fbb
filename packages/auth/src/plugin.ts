import fp from 'fastify-plugin'
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { ENVIRONMENT_ID_PATTERN } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { Identity, UserAccess } from '@quire/identity'
import {
  delegated,
  delegationHandle,
  isRunToken,
  refuseNetworkDelegation,
  runTokenGrant,
  type LiveGrant,
} from './delegation.js'
import type { KeyPair } from './keys.js'

/** Who calls: set by `authenticate` and by `requireEnvironment`. */
export interface Caller {
  readonly userId: string
  /** `action`: a server script's REST.call, acting for the user who set the action off (see `delegate`). */
  readonly via: 'access-token' | 'long-lived-token' | 'action'
  /** Never for an action, nor for a long-lived token minted by another user (see `Identified`). */
  readonly superAdministrator: boolean
  /**
   * Set when the credentials are bound (an action: its run's environment; a long-lived token minted by another
   * user: the environments it was minted for): the only environments they act in, whatever the user's role
   * elsewhere. Checks that read the user's other environments (acting for another user) must keep to these.
   */
  readonly environmentIds?: readonly string[]
  /** How many actions deep this call is: 0 for a client's request, n for a call made by an action at depth n. */
  readonly actionDepth: number
  /** For `via: 'action'`: aborts when the run that made the call ends; what the call would still start must not. */
  readonly signal?: AbortSignal
}

/** Who calls, and where: set by `requireEnvironment` alone. */
export interface Scope extends Caller {
  /** The `environment-id` of the call, checked to exist and to be open to the caller. */
  readonly environmentId: string
  /** Administrator of `environmentId` (always true for a super-administrator, and for its actions). */
  readonly administrator: boolean
  readonly groups: readonly string[]
}

/** Claims of our access tokens: `t` is the issue time in ms, finer than `iat`, for session revocation. */
export interface AccessTokenClaims {
  sub: string
  t: number
}

export interface AuthOptions {
  keys: KeyPair
  identity: Identity
  /** Access token lifetime when signing, in seconds. */
  accessTokenTtl?: number
  /**
   * Requests per minute per verified caller (its user id), and failed identifications per minute per client
   * address; 0 or absent = no limit. Counted in this process's memory (see `RequestBudget`).
   */
  callerRateLimitPerMinute?: number
}

type Hook = onRequestAsyncHookHandler

/** Who a request's credentials name, and what of the user's access they carry. */
interface Identified {
  userId: string
  via: Caller['via']
  access: UserAccess
  actionDepth: number
  /** The caller's: the user's, except through credentials someone else gave it (a delegation, a minted token). */
  superAdministrator: boolean
  /** Set when the credentials are bound: the environments they may act in (a delegation: its run's alone). */
  environmentIds?: readonly string[]
  signal?: AbortSignal
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, in routes behind `authenticate` or `requireEnvironment`; reading it elsewhere throws. */
    readonly caller: Caller
    /** The caller and its environment, in routes behind `requireEnvironment`; reading it elsewhere throws. */
    readonly scope: Scope
  }
  interface FastifyInstance {
    auth: {
      /** A valid bearer token; no environment. */
      authenticate: Hook
      /** `environment-id` present and valid, a valid bearer token, and access to that environment. */
      requireEnvironment: Hook
      /** After `requireEnvironment`: administrator of the environment (or super-administrator). */
      requireAdministrator: Hook
      /** After `authenticate` or `requireEnvironment`. */
      requireSuperAdministrator: Hook
      /** Any route, before or without authentication: 403 to a server script's call (credentials, accounts). */
      refuseDelegation: Hook
      /** Signs an access token for a user (only where the private key was given: the users service). */
      issueAccessToken(userId: string): string
    }
  }
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessTokenClaims
  }
}

const CALLER = Symbol('quire.caller')
const SCOPE = Symbol('quire.scope')

declare module 'fastify' {
  interface FastifyRequest {
    [CALLER]: Caller | null
    [SCOPE]: Scope | null
  }
}

function wiringError(request: FastifyRequest, hook: string): never {
  throw new Error(`${request.method} ${request.routeOptions.url ?? request.url} is not behind ${hook}`)
}

const ENVIRONMENT_ID = new RegExp(ENVIRONMENT_ID_PATTERN)
/** RFC 9110 §11.1: the scheme is case-insensitive (`bearer`, `BEARER`); one space before the token. */
const BEARER = /^bearer /i
const TOKEN_FORM = /^[\w.~+/=-]{16,4096}$/
/** Verified access tokens kept; more than the callers active within a token's lifetime on one process. */
const VERIFIED_TOKENS = 10_000

/**
 * Access tokens whose signature was verified, by the token itself, each until its `exp`. fast-jwt's own cache
 * keys by a sha256 of the token, which costs as much as the rest of a cached verification (and a custom key
 * makes it warn at every start). Holding tokens as keys exposes nothing new: each request brings its token
 * into this process's memory anyway. Revocation does not rely on it: `identify` checks the user every time.
 */
class VerifiedTokens {
  readonly #claims = new Map<string, AccessTokenClaims & { exp: number }>()

  get(token: string): AccessTokenClaims | undefined {
    const claims = this.#claims.get(token)
    if (claims && claims.exp * 1000 <= Date.now()) {
      this.#claims.delete(token)
      return undefined
    }
    return claims
  }

  set(token: string, claims: AccessTokenClaims & { exp?: number }): void {
    if (typeof claims.exp !== 'number') return
    // Maps keep insertion order: when full, the oldest entry goes.
    if (this.#claims.size >= VERIFIED_TOKENS) this.#claims.delete(this.#claims.keys().next().value as string)
    this.#claims.set(token, { ...claims, exp: claims.exp })
  }
}

/** Keys a budget holds at most; past it, ended windows are dropped, then the oldest. Bounds the memory. */
const BUDGET_KEYS = 100_000
const MINUTE_MS = 60_000

/**
 * Fixed one-minute windows per key, in this process's memory: one Map lookup per request, no store write on the
 * hot path. Each process (and each service mounted in it) counts on its own, so N replicas allow up to N times
 * the budget: it bounds one caller's share of a process, which is what it is for. The login and reset budgets,
 * which guard secrets, are counted in the shared store instead (the users service).
 */
class RequestBudget {
  readonly #windows = new Map<string, { count: number; resetAt: number }>()

  constructor(readonly max: number) {}

  /** Seconds until `key` may send again when it has used its budget, else 0. */
  wait(key: string, now: number): number {
    const window = this.#windows.get(key)
    return window && window.resetAt > now && window.count >= this.max ? Math.ceil((window.resetAt - now) / 1000) : 0
  }

  count(key: string, now: number): void {
    const window = this.#windows.get(key)
    if (window && window.resetAt > now) {
      window.count++
      return
    }
    if (!window && this.#windows.size >= BUDGET_KEYS) this.#evict(now)
    this.#windows.set(key, { count: 1, resetAt: now + MINUTE_MS })
  }

  #evict(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key)
    if (this.#windows.size >= BUDGET_KEYS) this.#windows.delete(this.#windows.keys().next().value as string)
  }
}

function rateLimited(reply: FastifyReply, wait: number, what: string) {
  reply.header('retry-after', String(wait))
  return fail('rate_limited', `Too many ${what}; retry in ${wait} s`, 'Too many requests; please wait and try again')
}

async function auth(app: FastifyInstance, options: AuthOptions) {
  const { identity } = options
  await app.register(fastifyJwt, {
    secret: options.keys.privateKey
      ? { private: options.keys.privateKey, public: options.keys.publicKey }
      : { public: options.keys.publicKey },
    sign: { algorithm: 'RS256', expiresIn: options.accessTokenTtl ?? 3600 },
    verify: { algorithms: ['RS256'] },
  })

  const verified = new VerifiedTokens()
  const perMinute = options.callerRateLimitPerMinute ?? 0
  const budget = perMinute > 0 ? new RequestBudget(perMinute) : null
  const unauthorized = (why: string) => fail('unauthorized', why, 'Please sign in again')

  /**
   * The claims of a token whose signature holds, or undefined. An expired one is refused on its unverified `exp`
   * first (refusing needs no trust): with the RSA check and fast-jwt's error, a request with an expired token
   * cost the server about three valid ones (220 against 65 µs); refused on `exp`, about 80 µs.
   */
  function verifiedClaims(token: string): (AccessTokenClaims & { exp?: number }) | undefined {
    try {
      const exp = app.jwt.decode<{ exp?: unknown }>(token)?.exp
      if (typeof exp === 'number' && exp * 1000 <= Date.now()) return undefined
      return app.jwt.verify<AccessTokenClaims & { exp?: number }>(token)
    } catch {
      return undefined
    }
  }

  /**
   * `identify`, within the budgets: a verified caller is counted by its user id (a new token of the same user
   * shares the budget); a request whose credentials fail is counted by its address, so a random Authorization
   * header per request gets no fresh budget, and an address past it is refused before any verification work.
   */
  async function identifyWithinBudget(request: FastifyRequest, reply: FastifyReply): Promise<Identified> {
    if (!budget) return identify(request)
    const address = `address:${request.ip}`
    let wait = budget.wait(address, Date.now())
    if (wait > 0) throw rateLimited(reply, wait, 'requests with invalid credentials')
    let identified: Awaited<ReturnType<typeof identify>>
    try {
      identified = await identify(request)
    } catch (err) {
      budget.count(address, Date.now())
      throw err
    }
    const caller = `user:${identified.userId}`
    const now = Date.now()
    wait = budget.wait(caller, now)
    if (wait > 0) throw rateLimited(reply, wait, 'requests')
    budget.count(caller, now)
    return identified
  }

  async function identify(request: FastifyRequest): Promise<Identified> {
    const handle = delegationHandle(request)
    if (handle !== undefined) return identifyDelegated(delegated(handle))
    const header = request.headers.authorization
    const token = header && BEARER.test(header) ? header.slice('bearer '.length) : ''
    if (isRunToken(token)) return identifyDelegated(runTokenGrant(token))
    // A token in the verified cache passed every check below when it was first seen.
    let claims = verified.get(token)
    if (!claims && !TOKEN_FORM.test(token)) throw unauthorized('Missing or malformed Authorization: Bearer token')
    let userId: string
    let issuedAt = Number.POSITIVE_INFINITY
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
    } else {
      const owner = await identity.longLivedToken(token)
      if (!owner) throw unauthorized('The token is invalid, revoked or expired')
      userId = owner.userId
      via = 'long-lived-token'
      environmentIds = owner.environmentIds
    }
    const user = await identity.user(userId)
    if (!user || issuedAt < user.sessionsValidAfter) throw unauthorized('The token is no longer valid')
    // A token minted by someone else carries what its minter could give, never the super-administrator's rights.
    const superAdministrator = user.superAdministrator && environmentIds === undefined
    return { userId, via, access: user, actionDepth: 0, superAdministrator, ...(environmentIds && { environmentIds }) }
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

  const authenticate: Hook = async (request, reply) => {
    const { userId, via, superAdministrator, actionDepth, environmentIds } = await identifyWithinBudget(request, reply)
    // Routes outside any environment (environments, the marketplace, the user's own account) are not a script's.
    if (via === 'action') throw fail('forbidden', 'An action can only call routes of its own environment')
    request[CALLER] = { userId, via, superAdministrator, actionDepth, ...(environmentIds && { environmentIds }) }
  }

  const requireEnvironment: Hook = async (request, reply) => {
    const environmentId = request.headers['environment-id']
    if (environmentId === undefined || environmentId === '') {
      throw fail('environment_id_missing', 'The environment-id header is required', 'No environment was selected')
    }
    if (typeof environmentId !== 'string' || !ENVIRONMENT_ID.test(environmentId)) {
      throw fail(
        'validation_error',
        `headers/environment-id must match ${ENVIRONMENT_ID_PATTERN}`,
        'The selected environment is not a valid environment id',
      )
    }
    const identified = await identifyWithinBudget(request, reply)
    const { userId, via, access, actionDepth, superAdministrator, environmentIds, signal } = identified
    // Bound credentials never reach another environment, even one their user can.
    if (environmentIds !== undefined && !environmentIds.includes(environmentId)) {
      throw via === 'action'
        ? fail('forbidden', `An action of environment ${environmentIds[0]} cannot reach environment ${environmentId}`)
        : fail(
            'forbidden',
            `This long-lived token was not minted for environment ${environmentId}`,
            'You do not have access to this environment',
          )
    }
    const entry = access.environments[environmentId]
    let role: Pick<Scope, 'administrator' | 'groups'>
    // A super-administrator's action administers its run's environment, the one it reaches.
    if (superAdministrator || (via === 'action' && access.superAdministrator)) {
      if ((await identity.environmentState(environmentId)) === null) {
        throw fail('forbidden', `Environment ${environmentId} does not exist`, 'This environment does not exist')
      }
      role = { administrator: true, groups: entry?.groups ?? [] }
    } else if (entry?.active === true && (await identity.environmentState(environmentId)) === 'active') {
      // A deactivated environment is open to super-administrators only.
      role = { administrator: entry.administrator, groups: entry.groups }
    } else {
      throw fail('forbidden', `No access to environment ${environmentId}`, 'You do not have access to this environment')
    }
    const scope: Scope = {
      userId,
      via,
      superAdministrator,
      actionDepth,
      environmentId,
      ...role,
      ...(environmentIds && { environmentIds }),
      ...(signal && { signal }),
    }
    request[CALLER] = scope
    request[SCOPE] = scope
  }

  /** Credentials and accounts are never a script's to manage, its own user's included. */
  const refuseDelegation: Hook = async (request) => {
    const header = request.headers.authorization ?? ''
    const runToken = BEARER.test(header) && isRunToken(header.slice('bearer '.length))
    if (delegationHandle(request) !== undefined || runToken) {
      throw fail(
        'forbidden',
        'An action cannot manage credentials, sessions or accounts',
        'A script cannot change accounts or their credentials',
      )
    }
  }

  const requireAdministrator: Hook = async (request) => {
    if (!request.scope.administrator) {
      throw fail('forbidden', 'This call needs an administrator of the environment')
    }
  }

  const requireSuperAdministrator: Hook = async (request) => {
    if (!request.caller.superAdministrator) {
      throw fail('forbidden', 'This call needs a super-administrator')
    }
  }

  // Before any hook of the service's routes: a delegation from the network never reaches a route, even one
  // without authentication.
  app.addHook('onRequest', refuseNetworkDelegation)
  app.decorateRequest(CALLER, null)
  app.decorateRequest(SCOPE, null)
  // Getters, so a route that forgot its hook fails loudly (a 500) instead of acting for nobody, or in no environment.
  app.decorateRequest('caller', {
    getter(this: FastifyRequest) {
      return this[CALLER] ?? wiringError(this, 'authenticate or requireEnvironment')
    },
  })
  app.decorateRequest('scope', {
    getter(this: FastifyRequest) {
      return this[SCOPE] ?? wiringError(this, 'requireEnvironment')
    },
  })
  const issueAccessToken = (userId: string): string => {
    if (!options.keys.privateKey) throw new Error('this service has no private key to sign with')
    return app.jwt.sign({ sub: userId, t: Date.now() })
  }

  app.decorate('auth', {
    authenticate,
    requireEnvironment,
    requireAdministrator,
    requireSuperAdministrator,
    refuseDelegation,
    issueAccessToken,
  })
}

/** Bearer verification, environment scope and role checks, shared by every service. */
export const authPlugin = fp(auth, { name: '@quire/auth', fastify: '5.x' })
