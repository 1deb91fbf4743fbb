import type { AccessTokenClaims } from './caller.js'

/** Verified access tokens kept; more than the callers active within a token's lifetime on one process. */
const VERIFIED_TOKENS = 10_000

/**
 * Access tokens whose signature was verified, by the token itself, each until its `exp`. fast-jwt's own cache
 * keys by a sha256 of the token, which costs as much as the rest of a cached verification (and a custom key
 * makes it warn at every start). Holding tokens as keys exposes nothing new: each request brings its token
 * into this process's memory anyway. Revocation does not rely on it: `identify` checks the user every time.
 */
export class VerifiedTokens {
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
