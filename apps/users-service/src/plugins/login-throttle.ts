import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { DuplicateKeyError, type RecordStore } from '@quire/records'
import { COLLECTIONS } from '../collections.js'

interface LoginAttempt {
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

interface LoginThrottleOptions {
  store: RecordStore
  maxPerAccount: number
  maxPerAddress: number
  windowSeconds: number
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
}

declare module 'fastify' {
  interface FastifyInstance {
    loginThrottle: LoginThrottle
  }
}

const MAX_ATTEMPTS = 5

/**
 * Fixed-window counters in the shared store, so every process of the service counts together (an in-memory
 * limiter would give each process its own budget).
 */
function loginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const failures = COLLECTIONS.loginFailures.in(options.store)
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

/** `app.loginThrottle`: how many failed logins an account and a client address may make. */
export const loginThrottlePlugin = fp(
  async (app: FastifyInstance, options: LoginThrottleOptions) => {
    app.decorate('loginThrottle', loginThrottle(options))
  },
  { name: '@quire/users-login-throttle', fastify: '5.x' },
)
