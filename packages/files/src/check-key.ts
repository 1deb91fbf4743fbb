import { InvalidKeyError } from './errors.js'

const SEGMENT = /^[A-Za-z0-9._-]+$/
const MAX_KEY_LENGTH = 1024

/** Keys are `[A-Za-z0-9._-]` segments joined by `/`; `.` and `..` segments are refused so no key escapes. */
export function checkKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new InvalidKeyError(`invalid file key "${key}"`)
  }
  for (const segment of key.split('/')) {
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..') {
      throw new InvalidKeyError(`invalid file key "${key}"`)
    }
  }
  return key
}
