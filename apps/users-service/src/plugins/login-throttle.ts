import type { RecordStore } from '@quire/records'
import { DuplicateKeyError } from '@quire/records'

/** Failed logins of one key (an account or a client address) in the current window, in `login_failures`. */
interface FailureRecord {
  _id: string
  count: number
  /** Epoch ms. */
  windowStart: number
  [field: string]: unknown
}

export interface LoginAttempt {
  /** The account's id when it exists, else the name tried: so username and e-mail share one budget. */
  account: string
  address: string
}

export interface LoginThrottle {
  /** Seconds until a login may be tried again, or null when it may be tried now. */
  retryAfter(attempt: LoginAttempt): Promise<number | null>
  failed(attempt: LoginAttempt): Promise<void>
  /** A successful login clears its account's failures (its address keeps its count). */
  succeeded(attempt: LoginAttempt): Promise<void>
}

export interface LoginThrottleOptions {
  maxPerAccount: number
  maxPerAddress: number
  windowSeconds: number
  now: () => number
}

const MAX_ATTEMPTS = 5

/**
 * Fixed-window counters in the shared store, so every process of the service counts together (an in-memory
 * limiter would give each process its own budget).
 */
export function loginThrottle(store: RecordStore, options: LoginThrottleOptions): LoginThrottle {
  const failures = store.collection<FailureRecord>('login_failures')
  const windowMs = options.windowSeconds * 1000
  const keys = ({ account, address }: LoginAttempt) =>
    [
      { _id: `account:${account}`, max: options.maxPerAccount },
      { _id: `address:${address}`, max: options.maxPerAddress },
    ] as const

  async function increment(_id: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = options.now()
      const current = await failures.findOne({ _id })
      if (!current) {
        try {
          await failures.insertOne({ _id, count: 1, windowStart: now })
          return
        } catch (err) {
          if (err instanceof DuplicateKeyError) continue
          throw err
        }
      }
      const next = current.windowStart + windowMs <= now ? { count: 1, windowStart: now } : { count: current.count + 1 }
      // Compare-and-set on what was read, so concurrent failures are all counted.
      const updated = await failures.updateOne(
        { _id, count: current.count, windowStart: current.windowStart },
        { $set: next },
      )
      if (updated) return
    }
  }

  return {
    async retryAfter(attempt) {
      const now = options.now()
      let wait = 0
      for (const { _id, max } of keys(attempt)) {
        const record = await failures.findOne({ _id })
        const windowEnd = record ? record.windowStart + windowMs : 0
        if (record && record.count >= max && windowEnd > now) wait = Math.max(wait, Math.ceil((windowEnd - now) / 1000))
      }
      return wait > 0 ? wait : null
    },
    async failed(attempt) {
      for (const { _id } of keys(attempt)) await increment(_id)
    },
    async succeeded(attempt) {
      await failures.deleteOne({ _id: keys(attempt)[0]._id })
    },
  }
}
