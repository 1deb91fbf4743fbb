/** Keys a budget holds at most; past it, ended windows are dropped, then the oldest. Bounds the memory. */
const BUDGET_KEYS = 100_000
const MINUTE_MS = 60_000

/**
 * Fixed one-minute windows per key, in this process's memory: one Map lookup per request, no store write on the
 * hot path. Each process (and each service mounted in it) counts on its own, so N replicas allow up to N times
 * the budget: it bounds one caller's share of a process, which is what it is for. The login and reset budgets,
 * which guard secrets, are counted in the shared store instead (the users service).
 */
export class RequestBudget {
  readonly #windows = new Map<string, { count: number; resetAt: number }>()

  constructor(readonly max: number) {}

  /** Seconds until `key` may send again when it has used its budget, else 0. */
  wait(key: string, now: number): number {
    const window = this.#windows.get(key)
    return window && window.resetAt > now && window.count >= this.max ? Math.ceil((window.resetAt - now) / 1000) : 0
  }

  count(key: string, now: number): void {
    const window = this.#windows.get(key)
    if (window && window.resetAt > now) {
      window.count++
      return
    }
    if (!window && this.#windows.size >= BUDGET_KEYS) this.#evict(now)
    this.#windows.set(key, { count: 1, resetAt: now + MINUTE_MS })
  }

  #evict(now: number): void {
    for (const [key, window] of this.#windows) if (window.resetAt <= now) this.#windows.delete(key)
    if (this.#windows.size >= BUDGET_KEYS) this.#windows.delete(this.#windows.keys().next().value as string)
  }
}
