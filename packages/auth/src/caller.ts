import type { UserAccess } from '@quire/identity'

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
  /** The session of an access token from `/auth/sessions` (its `sid`): `GET /auth/sessions` flags it current. */
  readonly sessionId?: string
}

/** Who calls, and where: set by `requireEnvironment` alone. */
export interface Scope extends Caller {
  /** The `environment-id` of the call, checked to exist and to be open to the caller. */
  readonly environmentId: string
  /** Administrator of `environmentId` (always true for a super-administrator, and for its actions). */
  readonly administrator: boolean
  readonly groups: readonly string[]
}

/**
 * Claims of our access tokens: `t` is the issue time in ms, finer than `iat`, for session revocation; `sid` the
 * session a renewable sign-in opened (absent from `/auth/login`'s tokens), which must still be live.
 */
export interface AccessTokenClaims {
  sub: string
  t: number
  sid?: string
}

/** Who a request's credentials name, and what of the user's access they carry. */
export interface Identified {
  userId: string
  via: Caller['via']
  access: UserAccess
  actionDepth: number
  /** The caller's: the user's, except through credentials someone else gave it (a delegation, a minted token). */
  superAdministrator: boolean
  /** Set when the credentials are bound: the environments they may act in (a delegation: its run's alone). */
  environmentIds?: readonly string[]
  signal?: AbortSignal
  sessionId?: string
}
