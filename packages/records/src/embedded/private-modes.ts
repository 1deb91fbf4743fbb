import { chmodSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Owner-only: the store holds password hashes, 2FA material and every tenant's documents. */
export const PRIVATE_DIR_MODE = 0o700
export const PRIVATE_FILE_MODE = 0o600

/** lmdb's two files in `<dataDir>/records`. */
const STORE_FILES = ['data.mdb', 'lock.mdb']

/**
 * Takes every permission of group and others off `path`; true when it had any. A missing path is left alone,
 * and so is a sticky folder (a data dir set to a shared one such as `/tmp` must not lock others out of it).
 */
function tighten(path: string, mode: number): boolean {
  let current: number
  try {
    current = statSync(path).mode
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
  if ((current & 0o077) === 0 || (current & 0o1000) !== 0) return false
  chmodSync(path, mode)
  return true
}

/**
 * Brings an existing data dir and the embedded store's folder and files in it to owner-only modes (an install
 * from before they were made so: lmdb made them 0755 and 0644). Returns the paths it changed, none the second
 * time. Nothing missing is created.
 */
export function tightenDataDir(dataDir: string): string[] {
  const records = join(dataDir, 'records')
  return [
    ...[dataDir, records].filter((dir) => tighten(dir, PRIVATE_DIR_MODE)),
    ...STORE_FILES.map((file) => join(records, file)).filter((file) => tighten(file, PRIVATE_FILE_MODE)),
  ]
}

/** Creates the data dir and `<dataDir>/records` owner-only where missing, and tightens them where they exist. */
export function privateStoreDir(dataDir: string): string {
  const records = join(dataDir, 'records')
  mkdirSync(records, { recursive: true, mode: PRIVATE_DIR_MODE })
  tightenDataDir(dataDir)
  return records
}
