import { randomBytes } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { Secret, TOTP } from 'otpauth'
import { hashToken } from '@quire/identity'
import type { UserAuthentication } from '../collections.js'

export interface TwoFactor {
  /** A fresh secret (base32) and the otpauth URI authenticator apps scan. */
  setup(username: string): { secret: string; uri: string }
  /**
   * The time step `code` is valid for (±1 step of drift), or null. A step at or before `lastStep` is refused,
   * so a code seen once cannot be replayed.
   */
  verify(secret: string, code: string, lastStep?: number): number | null
  /** Ten one-time recovery codes and their hashes (only the hashes are stored). */
  recoveryCodes(): { codes: string[]; hashes: string[] }
  /** The stored hash list without `code`'s hash, or null when it is not an unused recovery code. */
  useRecoveryCode(authentication: UserAuthentication, code: string): string[] | null
}

declare module 'fastify' {
  interface FastifyInstance {
    twoFactor: TwoFactor
  }
}

const PERIOD = 30
const RECOVERY_CODES = 10

/** Recovery codes are typed by people: compare them without dashes, spaces or case. */
const hashRecoveryCode = (code: string) => hashToken(code.replace(/[\s-]/g, '').toLowerCase())

interface TwoFactorOptions {
  /** Shown by authenticator apps. */
  issuer: string
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
}

/** TOTP (RFC 6238, SHA-1, 6 digits, 30 s). */
function twoFactor(options: TwoFactorOptions): TwoFactor {
  const totp = (secret: string, label = '') =>
    new TOTP({
      issuer: options.issuer,
      label,
      algorithm: 'SHA1',
      digits: 6,
      period: PERIOD,
      secret: Secret.fromBase32(secret),
    })

  return {
    setup(username) {
      const secret = new Secret({ size: 20 }).base32
      return { secret, uri: totp(secret, username).toString() }
    },

    verify(secret, code, lastStep) {
      const timestamp = options.now()
      const delta = totp(secret).validate({ token: code, timestamp, window: 1 })
      if (delta === null) return null
      const step = TOTP.counter({ period: PERIOD, timestamp }) + delta
      return lastStep !== undefined && step <= lastStep ? null : step
    },

    recoveryCodes() {
      const codes = Array.from({ length: RECOVERY_CODES }, () => {
        const hex = randomBytes(5).toString('hex')
        return `${hex.slice(0, 5)}-${hex.slice(5)}`
      })
      return { codes, hashes: codes.map(hashRecoveryCode) }
    },

    useRecoveryCode(authentication, code) {
      const hashes = authentication.recoveryCodeHashes ?? []
      const hash = hashRecoveryCode(code)
      return hashes.includes(hash) ? hashes.filter((stored) => stored !== hash) : null
    },
  }
}

/** `app.twoFactor`: TOTP secrets and codes, and recovery codes. Holds no state: the caller stores what it returns. */
export const twoFactorPlugin = fp(
  async (app: FastifyInstance, options: TwoFactorOptions) => {
    app.decorate('twoFactor', twoFactor(options))
  },
  { name: '@quire/users-two-factor', fastify: '5.x' },
)
