/**
 * The engine's watchdog over its workers. QuickJS polls its interrupt handler only every 10 000 branches, so a loop
 * around a long native call (`fill`, `join`, `sort`...) may run for seconds between polls, past the worker's own
 * CPU check. Each worker publishes its current guest segment in a SharedArrayBuffer (see SEGMENT_SEQUENCE); a
 * segment seen running past its run's CPU limit and a grace is reported, and the pool ends that worker.
 */

import { performance } from 'node:perf_hooks'
import { SEGMENT_RUN, SEGMENT_SEQUENCE } from './protocol.js'
import type { ScriptLimits } from './types.js'

/** How often the watchdog looks at the workers' guest segments while runs are in flight. */
const WATCHDOG_MS = 50
/** How long past its CPU limit one guest segment may run without the worker stopping it (a loaded machine is slow). */
const SEGMENT_GRACE_MS = 1000
/** How long past `wallMs` a worker may stay silent about a run before it is deemed stuck and replaced. */
const STUCK_GRACE_MS = 1000

/** What the watchdog reads of a worker. */
export interface Watched {
  /** The worker's current guest segment, published by the worker (see SEGMENT_SEQUENCE). */
  readonly segment: Int32Array
  /** Its runs in flight, by id. */
  readonly flights: ReadonlyMap<number, { readonly job: { readonly limits: ScriptLimits } }>
}

export class SegmentWatchdog<W extends Watched> {
  private timer: NodeJS.Timeout | undefined
  /** The running segment last seen on each worker, and when it was first seen. */
  private readonly seen = new WeakMap<W, { sequence: number; since: number }>()

  constructor(
    private readonly workers: () => readonly W[],
    /** Run `id`'s current segment has run `elapsedMs`, past its CPU limit and the grace: the worker must end. */
    private readonly overran: (worker: W, id: number, elapsedMs: number) => void,
  ) {}

  /** Looks every WATCHDOG_MS until no run is in flight: called as a run starts. */
  arm() {
    this.timer ??= setInterval(() => this.inspect(), WATCHDOG_MS).unref()
  }

  private inspect() {
    const now = performance.now()
    let flying = false
    for (const worker of [...this.workers()]) {
      flying ||= worker.flights.size > 0
      const sequence = Atomics.load(worker.segment, SEGMENT_SEQUENCE)
      const id = Atomics.load(worker.segment, SEGMENT_RUN)
      // Even: no guest code runs. Changed while reading: a new segment, seen at the next look.
      if ((sequence & 1) === 0 || Atomics.load(worker.segment, SEGMENT_SEQUENCE) !== sequence) {
        this.seen.delete(worker)
        continue
      }
      const seen = this.seen.get(worker)
      if (seen?.sequence !== sequence) {
        this.seen.set(worker, { sequence, since: now })
        continue
      }
      const flight = worker.flights.get(id)
      const elapsed = now - seen.since
      if (flight && elapsed > flight.job.limits.cpuMs + SEGMENT_GRACE_MS) this.overran(worker, id, elapsed)
    }
    if (!flying) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }
}

/** A worker enforces a run's wall limit itself; one silent well past it is stuck (a guest in native code). */
export const stuckTimer = (wallMs: number, stuck: () => void): NodeJS.Timeout =>
  setTimeout(stuck, wallMs + STUCK_GRACE_MS).unref()
