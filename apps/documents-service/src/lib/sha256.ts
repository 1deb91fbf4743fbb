import { hash } from 'node:crypto'

/** base64url sha256 of the parts, each NUL-terminated so that their boundaries are part of what is hashed. */
export const sha256 = (...parts: string[]): string => hash('sha256', `${parts.join('\0')}\0`, 'base64url')
