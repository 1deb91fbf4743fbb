import { randomBytes } from 'node:crypto'
import { Secret, TOTP } from 'otpauth'
import { sealer, type Sealer } from '@quire/auth'
import { hashToken } from '@quire/identity'
import type { RecordStore } from '@quire/records'
import { COLLECTIONS, type UserAuthentication } from '../collections.js'

/**
 * What is stored (`authentication.totpSecret`, `authentication.recoveryCodeHashes`) is sealed (`sealer` of @quire/auth):
 * callers store and compare the values these methods return and take, and never see a secret in clear but the
 * one `setup` shows its user.
 */
export interface TwoFactor {
  /** A fresh secret (base32), the otpauth URI authenticator apps scan, and the secret as it is stored. */
  setup(username: string): { secret: string; uri: string; stored: string }
  /**
   * The time step `code` is valid for (±1 step of drift) under the stored secret, or null. A step at or before
   * `lastStep` is refused, so a code seen once cannot be replayed.
   */
  verify(stored: string, code: string, lastStep?: number): number | null
  /** Ten one-time recovery codes and their hashes as stored (only those are). */
  recoveryCodes(): { codes: string[]; hashes: string[] }
  /** The stored hash list without `code`'s hash, or null when it is not an unused recovery code. */
  useRecoveryCode(authentication: UserAuthentication, code: string): string[] | null
}

const PERIOD = 30
const RECOVERY_CODES = 10

/** Recovery codes are typed by people: compare them without dashes, spaces or case. */
const hashRecoveryCode = (code: string) => hashToken(code.replace(/[\s-]/g, '').toLowerCase())

export interface TwoFactorOptions {
  store: RecordStore
  /** Shown by authenticator apps. */
  issuer: string
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
  /** Seals what is stored (the keys' `secretsKey`). */
  secretsKey: Buffer
}

/** A value stored in clear by a version before sealing (base32 or hex) is read as it is until sealed at start. */
const twoFactorSealer = (key: Buffer): Sealer =>
  sealer(key, { unsealed: 'read', refusal: 'a sealed secret does not open with the secrets key (QUIRE_SECRETS_KEY)' })

/** TOTP (RFC 6238, SHA-1, 6 digits, 30 s). */
export function createTwoFactor(options: TwoFactorOptions): TwoFactor {
  const sealed = twoFactorSealer(options.secretsKey)
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
      return { secret, uri: totp(secret, username).toString(), stored: sealed.seal(secret) }
    },

    verify(stored, code, lastStep) {
      const timestamp = options.now()
      const delta = totp(sealed.open(stored)).validate({ token: code, timestamp, window: 1 })
      if (delta === null) return null
      const step = TOTP.counter({ period: PERIOD, timestamp }) + delta
      return lastStep !== undefined && step <= lastStep ? null : step
    },

    recoveryCodes() {
      const codes = Array.from({ length: RECOVERY_CODES }, () => {
        const hex = randomBytes(5).toString('hex')
        return `${hex.slice(0, 5)}-${hex.slice(5)}`
      })
      return { codes, hashes: codes.map((code) => sealed.seal(hashRecoveryCode(code))) }
    },

    useRecoveryCode(authentication, code) {
      const stored = authentication.recoveryCodeHashes ?? []
      const hash = hashRecoveryCode(code)
      const used = stored.find((value) => sealed.open(value) === hash)
      return used === undefined ? null : stored.filter((value) => value !== used)
    },
  }
}

const PAGE = 500

/**
 * Seals the TOTP secrets and recovery code hashes stored in clear before they were sealed; returns how many users
 * it changed. Each write is conditional on the values read, so replicas starting together seal a user once, and
 * a login or setup meanwhile wins (what it writes is sealed already).
 */
export async function sealStoredInClear(store: RecordStore, secretsKey: Buffer): Promise<number> {
  const sealed = twoFactorSealer(secretsKey)
  const users = COLLECTIONS.users.in(store)
  const filter = { 'authentication.totpSecret': { $exists: true } }
  let changed = 0
  let after: string | undefined
  for (;;) {
    const page = await users.find(filter, { limit: PAGE, after })
    for (const { _id, authentication } of page) {
      const { totpSecret = '', recoveryCodeHashes = [] } = authentication
      const inClear = [totpSecret, ...recoveryCodeHashes].filter((value) => !sealed.isSealed(value))
      if (inClear.length === 0) continue
      const seal = (value: string) => (sealed.isSealed(value) ? value : sealed.seal(value))
      const $set: Record<string, unknown> = { 'authentication.totpSecret': seal(totpSecret) }
      const read: Record<string, unknown> = { _id, 'authentication.totpSecret': totpSecret }
      if (authentication.recoveryCodeHashes) {
        $set['authentication.recoveryCodeHashes'] = recoveryCodeHashes.map(seal)
        read['authentication.recoveryCodeHashes'] = { $eq: recoveryCodeHashes }
      }
      if ((await users.updateOne(read, { $set })) !== null) changed++
    }
    if (page.length < PAGE) return changed
    after = page.at(-1)?._id
  }
}
