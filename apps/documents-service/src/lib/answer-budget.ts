const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason))

/**
 * The bytes of REST.call answers this process holds at once, shared by every run of every environment. A call
 * takes what its answer may need before reading it and gives back what it did not use, then the rest once the
 * script has the answer. Calls wait in order: a waiter holds nothing, and a holder only reads the answer it was
 * given room for (it never needs more), so waiting cannot deadlock; a run that ends stops its calls' waits.
 */
export class AnswerBudget {
  #free: number
  readonly #waiting: { bytes: number; grant: () => void }[] = []

  constructor(readonly total: number) {
    this.#free = total
  }

  /** Bytes taken now. */
  get held(): number {
    return this.total - this.#free
  }

  /**
   * Resolves once `bytes` (at most `total`) are taken, to a `give(bytes)` handing some back (once it holds none,
   * further calls do nothing). Rejects with `signal`'s reason when it aborts first.
   */
  take(bytes: number, signal: AbortSignal): Promise<(bytes?: number) => void> {
    if (bytes > this.total) {
      return Promise.reject(new RangeError(`${bytes} bytes are more than the budget of ${this.total}`))
    }
    let held = bytes
    const give = (some = held) => {
      const given = Math.min(some, held)
      held -= given
      this.#free += given
      this.#serve()
    }
    if (signal.aborted) return Promise.reject(abortError(signal))
    // An empty answer (HEAD, 204) holds nothing: it never waits behind others.
    if (bytes === 0 || (this.#waiting.length === 0 && this.#free >= bytes)) {
      this.#free -= bytes
      return Promise.resolve(give)
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        bytes,
        grant: () => {
          signal.removeEventListener('abort', abort)
          resolve(give)
        },
      }
      const abort = () => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1)
        // The head may have been the one the others waited behind.
        this.#serve()
        reject(abortError(signal))
      }
      signal.addEventListener('abort', abort, { once: true })
      this.#waiting.push(waiter)
    })
  }

  /** Grants waiters in order while the first fits. */
  #serve(): void {
    while (this.#waiting.length > 0 && this.#free >= this.#waiting[0]!.bytes) {
      const waiter = this.#waiting.shift()!
      this.#free -= waiter.bytes
      waiter.grant()
    }
  }
}
