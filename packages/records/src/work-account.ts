import { AsyncLocalStorage } from 'node:async_hooks'

/** Whose costly store work a request does (its environment), and how much of it may wait for a turn. */
export interface WorkAccount {
  readonly id: string
  /** Costly reads and slices of this account that may wait at once; past it a read is refused (429). */
  readonly queueLimit: number
}

/** An account is active while it has started a request within this long: it then holds its share of the loop. */
const ACTIVE_MS = 100

const storage = new AsyncLocalStorage<WorkAccount>()
const lastSeen = new Map<string, number>()
let inUse = false

/**
 * Runs `work` (and everything it starts) on `account`'s behalf, and counts the account as active. Alone, it runs
 * without the context, which is then switched off: nothing is shared out, and while a context is in use Node 20
 * runs a hook at every promise of the process, a cost each request would pay (see BENCHMARKS.md).
 */
export function runAccounted<R>(account: WorkAccount, work: () => R): R {
  const now = performance.now()
  lastSeen.set(account.id, now)
  if (othersActive(account.id, now) > 0) {
    inUse = true
    return storage.run(account, work)
  }
  if (inUse) {
    storage.disable()
    inUse = false
  }
  return work()
}

/** The account of the work running now; none for work no request started (a sweep, a build at start) or alone. */
export function currentAccount(): WorkAccount | undefined {
  return storage.getStore()
}

/**
 * How many accounts other than `id` are active; forgets those that no longer are. Work of no account counts one
 * fewer: it is a sweep's, or a request's that ran alone.
 */
export function othersActive(id: string | undefined, now: number): number {
  let others = 0
  for (const [other, seen] of lastSeen) {
    if (now - seen > ACTIVE_MS) lastSeen.delete(other)
    else if (other !== id) others++
  }
  return id === undefined ? Math.max(0, others - 1) : others
}
