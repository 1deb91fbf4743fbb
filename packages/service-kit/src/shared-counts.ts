/**
 * Budgets and caps that all the processes of one server count together: uses per window of a key (requests per
 * minute of a caller) and places held at once (open subscriptions of an environment). One process counts in its
 * own memory (`localCounts`); the processes of a `node:cluster` server ask their primary (`countsOfPrimary`),
 * which counts for them all (`countsPrimary`), so that N processes allow what one would, not N times it.
 */
export interface SharedCounts {
  /**
   * Counts one use of `key` in its current window of `windowMs`, which allows `max`: 0 when counted, else the
   * seconds until the window ends (and nothing is counted).
   */
  take(key: string, max: number, windowMs: number): Promise<number>
  /** The seconds `key` is known to wait before its window allows it again, without counting; 0 when it may try. */
  refusedFor(key: string): number
  /** One of at most `max` places of `key` held at once, or undefined when all are; the function gives it back. */
  hold(key: string, max: number): Promise<(() => void) | undefined>
}

/** Keys a ledger keeps windows of at most; past it, ended windows are dropped, then the oldest. Bounds the memory. */
const WINDOW_KEYS = 100_000
/**
 * A process is leased at most this share of what is left of a window per peer, so what one process holds unused
 * (its caller went on through another) stays small; a window near its end is leased one use at a time.
 */
const LEASE_SHARE = 4

const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000))

interface Window {
  used: number
  max: number
  resetAt: number
}

function evictWindows<T extends { resetAt: number }>(windows: Map<string, T>, now: number): void {
  if (windows.size < WINDOW_KEYS) return
  for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key)
  if (windows.size >= WINDOW_KEYS) windows.delete(windows.keys().next().value as string)
}

/** Fixed windows and held places, counted exactly: one process's own, or the primary's for all. */
class Ledger {
  readonly #windows = new Map<string, Window>()
  readonly #held = new Map<string, number>()

  /** Up to `want` uses of `key`'s window: how many were granted, and when the window ends. */
  lease(key: string, max: number, windowMs: number, want: number, now: number) {
    let window = this.#windows.get(key)
    if (!window || window.resetAt <= now) {
      if (!window) evictWindows(this.#windows, now)
      window = { used: 0, max, resetAt: now + windowMs }
      this.#windows.set(key, window)
    }
    window.max = max
    const granted = Math.max(0, Math.min(want, max - window.used))
    window.used += granted
    return { granted, left: max - window.used, resetAt: window.resetAt }
  }

  refusedFor(key: string, now: number): number {
    const window = this.#windows.get(key)
    return window && window.resetAt > now && window.used >= window.max ? secondsUntil(window.resetAt, now) : 0
  }

  hold(key: string, max: number): boolean {
    const held = this.#held.get(key) ?? 0
    if (held >= max) return false
    this.#held.set(key, held + 1)
    return true
  }

  release(key: string, count = 1): void {
    const left = (this.#held.get(key) ?? count) - count
    if (left > 0) this.#held.set(key, left)
    else this.#held.delete(key)
  }
}

/** Gives back once, however often it is called (a stream's close and its error both release). */
function once(release: () => void): () => void {
  let released = false
  return () => {
    if (released) return
    released = true
    release()
  }
}

/** Counts of one process, in its memory: a Map lookup per use. */
export function localCounts(clock: () => number = Date.now): SharedCounts {
  const ledger = new Ledger()
  return {
    take: (key, max, windowMs) => {
      const now = clock()
      const { granted, resetAt } = ledger.lease(key, max, windowMs, 1, now)
      return Promise.resolve(granted > 0 ? 0 : secondsUntil(resetAt, now))
    },
    refusedFor: (key) => ledger.refusedFor(key, clock()),
    hold: (key, max) => Promise.resolve(ledger.hold(key, max) ? once(() => ledger.release(key)) : undefined),
  }
}

/** A question a process asks its primary, which answers it. */
type CountsQuestion =
  | { quireCounts: 'lease'; key: string; max: number; windowMs: number }
  | { quireCounts: 'hold'; key: string; max: number }

/** What a process sends its primary. */
type CountsRequest = (CountsQuestion & { id: number }) | { quireCounts: 'release'; key: string }

/** The primary's answer to a request's `id`: uses or places granted (0 = refused), and when the window ends. */
interface CountsAnswer {
  quireCounts: 'answer'
  id: number
  granted: number
  resetAt: number
}

/** How a process and its primary exchange messages (`process.send` and `'message'` in a cluster worker). */
export interface CountsChannel {
  send(message: CountsRequest): void
  onAnswer(listener: (answer: CountsAnswer) => void): void
}

const isAnswer = (message: unknown): message is CountsAnswer =>
  typeof message === 'object' && message !== null && (message as CountsAnswer).quireCounts === 'answer'

/** The IPC channel of a `node:cluster` worker to its primary. */
export function workerChannel(): CountsChannel {
  return {
    send: (message) => {
      if (!process.send) throw new Error('not a worker process: no channel to a primary')
      process.send(message)
    },
    onAnswer: (listener) =>
      process.on('message', (message) => {
        if (isAnswer(message)) listener(message)
      }),
  }
}

interface Lease {
  left: number
  resetAt: number
  /** The primary had no use left in this window. */
  refused: boolean
}

/**
 * Counts of a process whose primary counts for all (`countsPrimary`). Uses of a window are leased from the
 * primary a few at a time, so most requests count in this process's memory without a round trip; places are
 * asked for one by one (they are rare: a subscription, a transfer).
 */
export function countsOfPrimary(channel: CountsChannel, clock: () => number = Date.now): SharedCounts {
  const waiting = new Map<number, (answer: CountsAnswer) => void>()
  const leases = new Map<string, Lease>()
  /** Lease requests on their way, by key: concurrent uses of a key wait for one answer. */
  const asked = new Map<string, Promise<void>>()
  let nextId = 0
  channel.onAnswer((answer) => {
    waiting.get(answer.id)?.(answer)
    waiting.delete(answer.id)
  })
  const ask = (question: CountsQuestion) =>
    new Promise<CountsAnswer>((resolve) => {
      const id = nextId++
      waiting.set(id, resolve)
      channel.send({ ...question, id })
    })

  async function take(key: string, max: number, windowMs: number): Promise<number> {
    for (;;) {
      const now = clock()
      const lease = leases.get(key)
      if (lease && lease.resetAt > now) {
        if (lease.left > 0) {
          lease.left--
          return 0
        }
        if (lease.refused) return secondsUntil(lease.resetAt, now)
      }
      const pending = asked.get(key)
      if (pending) {
        await pending
        continue
      }
      const asking = ask({ quireCounts: 'lease', key, max, windowMs }).then(({ granted, resetAt }) => {
        asked.delete(key)
        if (!leases.has(key)) evictWindows(leases, clock())
        leases.set(key, { left: granted, resetAt, refused: granted === 0 })
      })
      asked.set(key, asking)
      await asking
    }
  }

  return {
    take,
    refusedFor: (key) => {
      const lease = leases.get(key)
      const now = clock()
      return lease?.refused && lease.resetAt > now ? secondsUntil(lease.resetAt, now) : 0
    },
    hold: async (key, max) => {
      const { granted } = await ask({ quireCounts: 'hold', key, max })
      return granted > 0 ? once(() => channel.send({ quireCounts: 'release', key })) : undefined
    },
  }
}

/** A process the primary counts for: what it answers through. */
export interface CountsPeer {
  readonly id: number
  send(answer: CountsAnswer): void
}

const isRequest = (message: unknown): message is CountsRequest =>
  typeof message === 'object' &&
  message !== null &&
  ['lease', 'hold', 'release'].includes((message as CountsRequest).quireCounts)

/**
 * The primary's side: one ledger for every `processes()` it serves. `receive` is given each message of a process
 * (others are ignored), `gone` a process that exited, whose places are given back.
 */
export function countsPrimary({ processes, clock = Date.now }: { processes: () => number; clock?: () => number }) {
  const ledger = new Ledger()
  /** Places held, by process, then by key. */
  const holders = new Map<number, Map<string, number>>()
  return {
    receive(peer: CountsPeer, message: unknown): void {
      if (!isRequest(message)) return
      const held = holders.get(peer.id) ?? new Map<string, number>()
      holders.set(peer.id, held)
      if (message.quireCounts === 'release') {
        const count = held.get(message.key) ?? 0
        if (count === 0) return
        ledger.release(message.key)
        if (count > 1) held.set(message.key, count - 1)
        else held.delete(message.key)
        return
      }
      if (message.quireCounts === 'hold') {
        const granted = ledger.hold(message.key, message.max) ? 1 : 0
        if (granted) held.set(message.key, (held.get(message.key) ?? 0) + 1)
        peer.send({ quireCounts: 'answer', id: message.id, granted, resetAt: 0 })
        return
      }
      const now = clock()
      const { max, windowMs, key } = message
      // What is left of the window, shared out: the lease shrinks as the window fills.
      const { left } = ledger.lease(key, max, windowMs, 0, now)
      const want = Math.max(1, Math.floor(left / (LEASE_SHARE * Math.max(1, processes()))))
      const { granted, resetAt } = ledger.lease(key, max, windowMs, want, now)
      peer.send({ quireCounts: 'answer', id: message.id, granted, resetAt })
    },
    gone(peer: Pick<CountsPeer, 'id'>): void {
      for (const [key, count] of holders.get(peer.id) ?? []) ledger.release(key, count)
      holders.delete(peer.id)
    },
  }
}
