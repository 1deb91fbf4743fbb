import fp from 'fastify-plugin'
import fastifyJwt from '@fastify/jwt'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { ApiError, fail, localCounts, type SharedCounts } from '@quire/service-kit'
import type { Identity } from '@quire/identity'
import type { AccessTokenClaims, Caller, Scope } from './caller.js'
import { delegationHandle, refuseNetworkDelegation } from './delegation.js'
import { createIdentify, isScriptCall, type Credentials } from './identify.js'
import type { KeyPair } from './keys.js'
import { environmentIdOf, scopeIn } from './scope.js'

export interface AuthOptions {
  keys: KeyPair
  identity: Identity
  /** Access token lifetime when signing, in seconds. */
  accessTokenTtl?: number
  /**
   * Requests per minute per verified caller (its user id), and failed identifications per minute per client
   * address; 0 or absent = no limit. Counted in fixed one-minute windows, in `counts`.
   */
  callerRateLimitPerMinute?: number
  /** Where the budgets are counted: every process of the server, or (absent) this plugin's own memory. */
  counts?: SharedCounts
}

type Hook = onRequestAsyncHookHandler

const CALLER = Symbol('quire.caller')
const SCOPE = Symbol('quire.scope')
/** The plugin instance's `stillValid` check, set beside the caller (one function per plugin, none per request). */
const RECHECK = Symbol('quire.recheck')
type Recheck = (request: FastifyRequest) => Promise<boolean>

declare module 'fastify' {
  interface FastifyRequest {
    [CALLER]: Caller | null
    [SCOPE]: Scope | null
    [RECHECK]: Recheck | null
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
      /**
       * Signs an access token for a user (only where the private key was given: the users service); with
       * `sessionId`, the token is refused once that session ends.
       */
      issueAccessToken(userId: string, sessionId?: string): string
    }
  }
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: AccessTokenClaims
  }
}

function wiringError(request: FastifyRequest, hook: string): never {
  throw new Error(`${request.method} ${request.routeOptions.url ?? request.url} is not behind ${hook}`)
}

const credentialsOf = (request: FastifyRequest): Credentials => ({
  authorization: request.headers.authorization,
  delegationHandle: () => delegationHandle(request),
  address: request.ip,
})

async function auth(app: FastifyInstance, options: AuthOptions) {
  const { identity } = options
  await app.register(fastifyJwt, {
    secret: options.keys.privateKey
      ? { private: options.keys.privateKey, public: options.keys.publicKey }
      : { public: options.keys.publicKey },
    sign: { algorithm: 'RS256', expiresIn: options.accessTokenTtl ?? 3600 },
    verify: { algorithms: ['RS256'] },
  })

  const identification = createIdentify({
    identity,
    signature: {
      decode: (token) => app.jwt.decode<{ exp?: unknown }>(token),
      verify: (token) => app.jwt.verify<AccessTokenClaims & { exp?: number }>(token),
    },
    perMinute: options.callerRateLimitPerMinute ?? 0,
    counts: options.counts ?? localCounts(),
  })
  const identify = (request: FastifyRequest, reply: FastifyReply) =>
    identification.withinBudget(credentialsOf(request), (seconds) => reply.header('retry-after', String(seconds)))

  /** The request's credentials identified again, and its environment's access checked again behind `requireEnvironment`. */
  const recheck: Recheck = async (request) => {
    try {
      const identified = await identification.again(credentialsOf(request))
      const scope = request[SCOPE]
      if (scope) await scopeIn(identified, scope.environmentId, identity)
      return identified.userId === request[CALLER]?.userId
    } catch (err) {
      // A refusal is the answer; a store that cannot be read is the caller's to handle.
      if (err instanceof ApiError && err.statusCode < 500) return false
      throw err
    }
  }

  const authenticate: Hook = async (request, reply) => {
    const { userId, via, superAdministrator, actionDepth, environmentIds, sessionId } = await identify(request, reply)
    // Routes outside any environment (environments, the marketplace, the user's own account) are not a script's.
    if (via === 'action') throw fail('forbidden', 'An action can only call routes of its own environment')
    request[CALLER] = {
      userId,
      via,
      superAdministrator,
      actionDepth,
      ...(environmentIds && { environmentIds }),
      ...(sessionId !== undefined && { sessionId }),
    }
    request[RECHECK] = recheck
  }

  const requireEnvironment: Hook = async (request, reply) => {
    const environmentId = environmentIdOf(request.headers['environment-id'])
    const scope = await scopeIn(await identify(request, reply), environmentId, identity)
    request[CALLER] = scope
    request[SCOPE] = scope
    request[RECHECK] = recheck
  }

  /** Credentials and accounts are never a script's to manage, its own user's included. */
  const refuseDelegation: Hook = async (request) => {
    if (isScriptCall(credentialsOf(request))) {
      throw fail(
        'forbidden',
        'An action cannot manage credentials, sessions or accounts',
        'A script cannot change accounts or their credentials',
      )
    }
  }

  const requireAdministrator: Hook = async (request) => {
    if (!request.scope.administrator) throw fail('forbidden', 'This call needs an administrator of the environment')
  }

  const requireSuperAdministrator: Hook = async (request) => {
    if (!request.caller.superAdministrator) throw fail('forbidden', 'This call needs a super-administrator')
  }

  // Before any hook of the service's routes: a delegation from the network never reaches a route, even one
  // without authentication.
  app.addHook('onRequest', refuseNetworkDelegation)
  app.decorateRequest(CALLER, null)
  app.decorateRequest(SCOPE, null)
  app.decorateRequest(RECHECK, null)
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
  const issueAccessToken = (userId: string, sessionId?: string): string => {
    if (!options.keys.privateKey) throw new Error('this service has no private key to sign with')
    return app.jwt.sign({ sub: userId, t: Date.now(), ...(sessionId !== undefined && { sid: sessionId }) })
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

/**
 * Whether the caller of a request let in by `authenticate` or `requireEnvironment` would still be let in now: its
 * credentials are read again (the user there and not signed out everywhere, the access token unexpired and its
 * session live, the long-lived token not revoked, the delegation not ended) and, behind `requireEnvironment`, its
 * access to that environment. For work that outlives the request's hooks, such as an SSE stream re-checking its
 * subscriber; outside the per-minute budgets. Rejects only when the store cannot be read.
 */
export function stillValid(request: FastifyRequest): Promise<boolean> {
  const recheck = request[RECHECK] ?? wiringError(request, 'authenticate or requireEnvironment')
  return recheck(request)
}

/** Bearer verification, environment scope and role checks, shared by every service. */
export const authPlugin = fp(auth, { name: '@quire/auth', fastify: '5.x' })
