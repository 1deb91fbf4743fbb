import { statfs } from 'node:fs/promises'
import { constants } from 'node:os'
import { StoreFullError } from '../errors.js'

/** lmdb's code for a write that does not fit in the map (lmdb.h). */
const MDB_MAP_FULL = -30792
/** Codes, errno or lmdb's, of a store that cannot grow. */
const FULL_CODES: ReadonlySet<unknown> = new Set([constants.errno.ENOSPC, constants.errno.EDQUOT, MDB_MAP_FULL])
/**
 * lmdb reports a page write the disk took only part of as EIO, not ENOSPC: such a failure counts as a full disk
 * when the store's filesystem has less than this left.
 */
const NEARLY_FULL_BYTES = 2 ** 20

/** lmdb's rejection of each write of a batch whose commit failed; `commitError` rejects with the cause. */
interface CommitFailed extends Error {
  commitError: Promise<never>
}

const isCommitFailed = (error: unknown): error is CommitFailed =>
  error instanceof Error && 'commitError' in error && error.commitError instanceof Promise

const codeOf = (error: unknown): unknown =>
  typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined

/**
 * What a failed write tells its caller: `StoreFullError` when the store could not grow (in the commit, or in the
 * write itself for a full map), the cause of any other failed commit, the write's own error otherwise.
 */
export async function writeFailure(error: unknown, path: string): Promise<unknown> {
  const cause = isCommitFailed(error)
    ? await error.commitError.then(
        () => error,
        (reason: unknown) => reason,
      )
    : error
  const code = codeOf(cause)
  const full = FULL_CODES.has(code) || (code === constants.errno.EIO && (await nearlyFull(path)))
  return full ? new StoreFullError('the disk holding the store is full', { cause }) : cause
}

async function nearlyFull(path: string): Promise<boolean> {
  try {
    const { bavail, bsize } = await statfs(path)
    return bavail * bsize < NEARLY_FULL_BYTES
  } catch {
    return false
  }
}

let guarded = false

/**
 * A failed commit also rejects promises no caller holds (lmdb's batch start, then `commitError` unless a write's
 * failure read it: kriszyp/lmdb-js#368); unhandled, Node would end the process for a refused write. This listener
 * drops those, since every write of the batch is rejected on its own; any other rejection is thrown as Node does
 * when nothing listens, unless another listener is there to decide.
 */
export function guardCommitFailures(): void {
  if (guarded) return
  guarded = true
  // Node reports `commitError` next even when a handler is added while it reports the batch start.
  const causes = new WeakSet<Promise<unknown>>()
  process.on('unhandledRejection', (reason, promise) => {
    if (isCommitFailed(reason)) {
      causes.add(reason.commitError)
      return
    }
    if (causes.has(promise)) return
    if (process.listenerCount('unhandledRejection') === 1) throw reason
  })
}
