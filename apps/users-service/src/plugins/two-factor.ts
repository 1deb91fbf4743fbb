import { randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import { hashToken } from '@quire/auth'
import type { UserAuthentication } from '@quire/contracts'

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

const PERIOD = 30
const RECOVERY_CODES = 10

/** Recovery codes are typed by people: compare them without dashes, spaces or case. */
const hashRecoveryCode = (code: string) => hashToken(code.replace(/[\s-]/g, '').toLowerCase())

/** TOTP (RFC 6238, SHA-1, 6 digits, 30 s). `now` is the clock in ms, injectable so tests use a fixed one. */
export function twoFactor(options: { issuer: string; now: () => number }): TwoFactor {
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
