import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'

/**
 * Long work (a scan past its first slice, an index build, a sweep) shares the one event loop with every other
 * request, whoever starts it. Its slices take turns through this gate: after a slice of d ms, the next slice of any
 * long work waits d × `REST` ms, so all of it together holds at most 1 / (1 + REST) of the loop, and short requests
 * of every environment keep the rest. Yielding alone was not enough: in the bench's noisy-neighbour scenario a
 * neighbour's scans and index builds, each yielding every 2 ms, left the reader 26% of its throughput.
 */
const REST = 4
let queue: Promise<void> = Promise.resolve()
let restUntil = 0

/** Resolves when it is the caller's turn to run one slice; report the slice's length with `spent` right after. */
export function turn(): Promise<void> {
  const mine = queue.then(() => {
    const wait = restUntil - performance.now()
    return wait > 0 ? sleep(wait) : nextTurn()
  })
  queue = mine
  return mine
}

export function spent(ms: number): void {
  restUntil = performance.now() + ms * REST
}
