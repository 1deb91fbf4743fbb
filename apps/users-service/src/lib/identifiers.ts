import { fail } from '@quire/service-kit'
import { isHighlyRestrictive } from './scripts.js'

/**
 * Characters no username may hold: control (Cc), format (Cf: zero-width and bidirectional controls among them),
 * surrogate (Cs), private-use (Co) and unassigned (Cn) code points, every other character that is invisible by
 * default (Default_Ignorable_Code_Point: variation selectors, fillers), and whitespace anywhere.
 */
const REFUSED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}\p{White_Space}]/u

const refuse = (why: string) =>
  fail(
    'validation_error',
    `body/username ${why}`,
    'This username cannot be used: use letters of one alphabet, digits and punctuation, without spaces',
  )

/**
 * The username as stored: `raw` in Unicode NFC, so that one name typed two ways is one name. Throws
 * `validation_error` for a character of `REFUSED` or letters of mixed scripts (lib/scripts.ts).
 */
export function checkUsername(raw: string): string {
  const username = raw.normalize('NFC')
  const refused = REFUSED.exec(username)
  if (refused) {
    const codePoint = refused[0].codePointAt(0) ?? 0
    throw refuse(`must not contain U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`)
  }
  if (!isHighlyRestrictive(username)) throw refuse('must not mix letters of different scripts')
  return username
}

/**
 * What an account is signed in by and must be unique on, for a username or an e-mail address: compatibility
 * forms folded (NFKC: full-width letters, ligatures) and case folded (upper then lower case: `ß` is `ss`, a final
 * sigma a sigma). `Admin`, `ADMIN` and `ａｄｍｉｎ` all have the key `admin`.
 */
export function loginKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC')
}

/** An account-level e-mail address as stored and shown: NFC, lower case (as addresses were always kept). */
export const storedEmail = (address: string): string => address.normalize('NFC').toLowerCase()
