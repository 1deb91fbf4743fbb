import { DuplicateKeyError, StoreFullError, type RecordStore } from '@quire/records'
import { COLLECTIONS } from '../collections.js'

/** One budget: at most `max` attempts of `key` per window. */
interface Budget {
  key: string
  max: number
}

export interface Throttle {
  /**
   * Reserves one attempt of every budget, atomically in the shared store, BEFORE the work it guards: of N
   * concurrent attempts with `max` left, exactly `max` get through. Returns null when reserved (or let through
   * uncounted on a full disk), else the seconds until the earliest window that refused ends (then nothing stays
   * reserved).
   */
  reserve(budgets: readonly Budget[], windowSeconds: number): Promise<number | null>
  /** Gives back one reserved attempt (a success that must not count against its budget). */
  release(key: string): Promise<void>
  /** Forgets every attempt of `key` (a successful login clears its account's failures). */
  clear(key: string): Promise<void>
}

export interface ThrottleOptions {
  store: RecordStore
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
}

/**
 * A write giving attempts back, skipped when the disk is full (`StoreFullError`, resolving true): the count stays,
 * which errs on the side of refusing.
 */
async function unlessFull(write: () => Promise<unknown>): Promise<unknown> {
  try {
    return await write()
  } catch (err) {
    if (err instanceof StoreFullError) return true
    throw err
  }
}

/**
 * Fixed-window counters in the shared store, so every replica of the service counts together (an in-memory limiter
 * would give each process its own budget). The port has no `$inc`, so each change is a compare-and-set on the
 * count read: a lost race means another attempt was counted, so a reservation retries at most about `max` times.
 */
export function createThrottle({ store, now: clock }: ThrottleOptions): Throttle {
  const counters = COLLECTIONS.throttles.in(store)

  /**
   * On a full disk (`StoreFullError`) the attempt cannot be counted: it goes through uncounted, so signing in still
   * works; a budget already spent still refuses (the count is read before any write).
   */
  async function reserveOne(budget: Budget, windowMs: number): Promise<number | null> {
    try {
      return await countOne(budget, windowMs)
    } catch (err) {
      if (err instanceof StoreFullError) return null
      throw err
    }
  }

  async function countOne({ key, max }: Budget, windowMs: number): Promise<number | null> {
    for (let attempt = 0; attempt <= max + 8; attempt++) {
      const now = clock()
      const current = await counters.findOne({ _id: key })
      if (!current) {
        try {
          await counters.insertOne({ _id: key, count: 1, windowStart: now, expiresAt: now + windowMs })
          return null
        } catch (err) {
          if (err instanceof DuplicateKeyError) continue
          throw err
        }
      }
      const read = { _id: key, count: current.count, windowStart: current.windowStart }
      if (current.expiresAt <= now) {
        if (await counters.updateOne(read, { $set: { count: 1, windowStart: now, expiresAt: now + windowMs } })) {
          return null
        }
        continue
      }
      if (current.count >= max) return Math.ceil((current.expiresAt - now) / 1000)
      if (await counters.updateOne(read, { $set: { count: current.count + 1 } })) return null
    }
    // Contention beyond any honest client's: refuse rather than loop.
    return 1
  }

  async function release(key: string): Promise<void> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const current = await counters.findOne({ _id: key })
      if (!current || current.count <= 0) return
      const read = { _id: key, count: current.count, windowStart: current.windowStart }
      if (await unlessFull(() => counters.updateOne(read, { $set: { count: current.count - 1 } }))) return
    }
  }

  return {
    async reserve(budgets, windowSeconds) {
      const reserved: string[] = []
      for (const budget of budgets) {
        const wait = await reserveOne(budget, windowSeconds * 1000)
        if (wait !== null) {
          // A refused attempt consumes nothing: the budgets reserved before this one are given back.
          for (const key of reserved) await release(key)
          return wait
        }
        reserved.push(budget.key)
      }
      return null
    },
    release,
    async clear(key) {
      await unlessFull(() => counters.deleteOne({ _id: key }))
    },
  }
}
