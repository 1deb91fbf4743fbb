import type { Key, RangeOptions } from 'lmdb'
import type { Engine } from './engine.js'
import { spent, turn } from './long-work.js'

/**
 * A plan runs as a generator that yields `PAUSE` between chunks of reads. Run asynchronously (`runAsync`), each
 * pause gives the event loop a turn, so a long scan interleaves with other requests; run inside a write
 * (`runSync`), pauses are passed over. No lmdb cursor stays open across a pause: a range resumes after its last key.
 */
export const PAUSE = Symbol('pause')
export type Steps<R> = Generator<typeof PAUSE, R>

/** A scan pauses once it has held the event loop this long (checked every `CHECK_EVERY` reads). */
const SLICE_MS = 2
const CHECK_EVERY = 64

/** Decides when a plan pauses; never, for a plan run inside a write. */
export class Pacer {
  #reads = 0
  #since = performance.now()
  constructor(readonly pauses: boolean) {}

  due(): boolean {
    if (!this.pauses || ++this.#reads % CHECK_EVERY !== 0) return false
    const now = performance.now()
    if (now - this.#since < SLICE_MS) return false
    return true
  }

  resumed(): void {
    this.#since = performance.now()
  }
}

export function runSync<R>(steps: Steps<R>): R {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * Runs a plan, giving the event loop a turn at each pause; refuses to go on once the store is closing. A plan
 * that ends before its first pause (every page read off an index) is answered at once, without a promise.
 */
export function runAsync<R>(engine: Engine, pacer: Pacer, steps: Steps<R>): R | Promise<R> {
  const step = steps.next()
  return step.done ? step.value : resume(engine, pacer, steps)
}

async function resume<R>(engine: Engine, pacer: Pacer, steps: Steps<R>): Promise<R> {
  for (;;) {
    await turn()
    try {
      engine.assertOpen()
    } catch (error) {
      steps.return(undefined as R)
      throw error
    }
    pacer.resumed()
    const started = performance.now()
    const step = steps.next()
    spent(performance.now() - started)
    if (step.done) return step.value
  }
}

/** Keys as lmdb compares them: strings (records), or arrays of parts (index entries). */
export const sameKey = (a: Key, b: Key): boolean =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((part, i) => part === b[i]))

/**
 * A key range of `db` in chunks, each entry through `map` (undefined: passed over): at a pause the cursor is
 * closed, and the range resumes at its last key. One generator, so a short page pays for one level of them.
 */
export function* range<K extends Key, V, T>(
  db: { getRange(options: RangeOptions): Iterable<{ key: K; value: V }>; getKeys(options: RangeOptions): Iterable<K> },
  options: RangeOptions,
  pacer: Pacer,
  keysOnly: boolean,
  map: (key: K, value: V | undefined) => T | undefined,
): Generator<T | typeof PAUSE> {
  let last: K | undefined
  for (;;) {
    let paused = false
    // A resumed range starts at the last key read: passed over once.
    let skip = last
    const from = last === undefined ? options : { ...options, start: last }
    for (const entry of keysOnly ? db.getKeys(from) : db.getRange(from)) {
      const key = keysOnly ? (entry as K) : (entry as { key: K }).key
      if (skip !== undefined) {
        const again = sameKey(key, skip)
        skip = undefined
        if (again) continue
      }
      last = key
      const item = map(key, keysOnly ? undefined : (entry as { value: V }).value)
      if (item !== undefined) yield item
      if (pacer.due()) {
        paused = true
        break
      }
    }
    if (!paused) return
    yield PAUSE
  }
}
