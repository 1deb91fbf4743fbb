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

/** Runs `work` (and everything it starts) on `account`'s behalf, and counts the account as active. */
export function runAccounted<R>(account: WorkAccount, work: () => R): R {
  lastSeen.set(account.id, performance.now())
  return storage.run(account, work)
}

/** The account of the work running now; none for work no request started (a sweep, a build at start). */
export function currentAccount(): WorkAccount | undefined {
  return storage.getStore()
}

/** How many accounts other than `id` are active; forgets those that no longer are. */
export function othersActive(id: string | undefined, now: number): number {
  let others = 0
  for (const [other, seen] of lastSeen) {
    if (now - seen > ACTIVE_MS) lastSeen.delete(other)
    else if (other !== id) others++
  }
  return others
}
