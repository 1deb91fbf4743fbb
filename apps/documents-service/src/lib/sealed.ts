import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * Secrets at rest sealed with AES-256-GCM, a random 12-byte IV per value, stored as `v1$<iv>$<tag>$<ciphertext>`
 * (base64url parts): the users service's format for its 2FA secrets. Written here, not shared, because services
 * share only `packages/` and that module is the users service's own.
 */
export interface Sealer {
  seal(plaintext: string): string
  open(stored: string): string
}

const PREFIX = 'v1$'
const ALGORITHM = 'aes-256-gcm'
const IV_BYTES = 12
/** Fixed, so a shortened tag is refused (GCM would otherwise check only the bytes given). */
const TAG_BYTES = 16

export function sealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes')
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES })
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      return `${PREFIX}${[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('$')}`
    },

    open(stored) {
      const [iv = '', tag = '', ciphertext = ''] = stored.slice(PREFIX.length).split('$')
      try {
        if (!stored.startsWith(PREFIX)) throw new Error('not sealed')
        const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES })
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
      } catch (error) {
        // Says nothing of the value: another key than the one it was sealed with, or an altered record.
        throw new Error('a sealed webhook secret does not open with the secrets key', { cause: error })
      }
    },
  }
}

/** The base64 text of a 32-byte key, checked. */
export function decodeKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64')
  if (key.length !== 32 || key.toString('base64') !== text.trim()) {
    throw new Error('QUIRE_WEBHOOKS_SECRETS_KEY must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)')
  }
  return key
}
