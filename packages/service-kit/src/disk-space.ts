import { statfs } from 'node:fs/promises'
import { NotReadyError, type ReadinessCheck } from './health.js'

const MB = 2 ** 20

/**
 * A `/ready` check: fails while the disk holding `dir` has less than `minFreeMb` free for this process (so a
 * balancer stops sending writes before they fail). A `dir` not made yet holds nothing: the check passes.
 */
export function diskSpaceCheck(
  dir: string,
  minFreeMb: number,
  stat: (path: string) => Promise<{ bavail: number; bsize: number }> = statfs,
): ReadinessCheck {
  return async () => {
    if (minFreeMb === 0) return
    let free: number
    try {
      const { bavail, bsize } = await stat(dir)
      free = bavail * bsize
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    if (free < minFreeMb * MB) {
      throw new NotReadyError(
        `${(free / MB).toFixed(1)} MB free on the data disk, under the floor of ${minFreeMb} MB (QUIRE_MIN_FREE_DISK_MB)`,
      )
    }
  }
}
