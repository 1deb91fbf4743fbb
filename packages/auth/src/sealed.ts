import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * Secrets at rest (2FA secrets and recovery code hashes, webhook secrets) sealed with AES-256-GCM under a 32-byte
 * key, a random 12-byte IV per value: stored as `v1$<iv>$<tag>$<ciphertext>`, base64url parts.
 */
export interface Sealer {
  seal(plaintext: string): string
  /** The plaintext of a sealed value; a value without the prefix as `unsealed` says. */
  open(stored: string): string
  isSealed(stored: string): boolean
}

export interface SealerOptions {
  /**
   * A value without the prefix: `read` as it is (a secret stored before sealing, which never holds a `$`), or
   * `refused` like a value that does not open (one that is always sealed).
   */
  unsealed: 'read' | 'refused'
  /** The message of what `open` throws: it names the key an operator should check, and never the value. */
  refusal: string
}

const PREFIX = 'v1$'
const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
/** Fixed, so a shortened tag is refused (GCM would otherwise check only the bytes given). */
const TAG_BYTES = 16

export function sealer(key: Buffer, options: SealerOptions): Sealer {
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
      if (!isSealed(stored)) {
        if (options.unsealed === 'read') return stored
        throw new Error(options.refusal)
      }
      const [iv = '', tag = '', ciphertext = ''] = stored.slice(PREFIX.length).split('$')
      try {
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES })
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
      } catch (error) {
        // Says nothing of the value: another key than the one it was sealed with, or an altered record.
        throw new Error(options.refusal, { cause: error })
      }
    },
  }
}
