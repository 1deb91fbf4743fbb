import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * Secrets at rest (TOTP secrets, recovery code hashes) sealed with AES-256-GCM under the secrets key, a random
 * 12-byte IV per value: stored as `v1$<iv>$<tag>$<ciphertext>`, base64url parts. A value without the prefix is
 * one stored before sealing (base32 or hex, never a `$`): read as it is until sealed.
 */
export interface Sealer {
  seal(plaintext: string): string
  /** The plaintext of a sealed value, or the value itself when stored before sealing. */
  open(stored: string): string
  isSealed(stored: string): boolean
}

const PREFIX = 'v1$'
const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
/** Fixed, so a shortened tag is refused (GCM would otherwise check only the bytes given). */
const TAG_BYTES = 16

export function sealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes')
  const isSealed = (stored: string) => stored.startsWith(PREFIX)
  return {
    isSealed,

    seal(plaintext) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES })
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return `${PREFIX}${[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('$')}`
    },

    open(stored) {
      if (!isSealed(stored)) return stored
      const [iv = '', tag = '', ciphertext = ''] = stored.slice(PREFIX.length).split('$')
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES })
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
      } catch (error) {
        // Says nothing of the value: an operator gave another key than the one it was sealed with, or it was altered.
        throw new Error('a sealed secret does not open with the secrets key (QUIRE_SECRETS_KEY)', { cause: error })
      }
    },
  }
}
