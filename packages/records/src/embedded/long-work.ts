import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises'
import { WorkQueueFullError } from '../errors.js'
import { currentAccount, othersActive, type WorkAccount } from '../work-account.js'

/**
 * Costly store work (a read's first slice and each later one, an index build's chunks, a sweep's) shares the one
 * event loop with every other request. Its time is charged to the work account it runs for (the request's
 * environment, see work-account.ts; work of no account, a sweep's or a request's made alone, has a queue of its
 * own and counts as one of the active accounts), and each account takes its turns through a queue of its own. While `n` other accounts are active, an account that spent d ms rests
 * d × REST × n ms before its next costly read or slice: its costly work holds at most 1 / (1 + REST × n) of the
 * loop, whatever its shape, and the other environments' requests keep the rest. Alone, it runs with no rest,
 * still giving the loop a turn between slices. Per account, not one gate for all: otherwise a neighbour's queue
 * would be every environment's wait.
 */
const REST = 2
/** A rest shorter than this does not hold a read back: a timer would cost more than the rest itself. */
const GRACE_MS = 1

interface Gate {
  restUntil: number
  /** The next slices of reads already under way: served first, so the account's reads finish in the order begun. */
  resumes: Array<() => void>
  /** Costly reads and writes yet to begin. */
  fresh: Array<() => void>
  /** Reads, slices and writes waiting in either. */
  waiting: number
  serving: boolean
}

const gates = new Map<string | undefined, Gate>()

function gateOf(id: string | undefined): Gate {
  let gate = gates.get(id)
  if (!gate) {
    if (gates.size >= 1024) forgetIdle()
    gate = { restUntil: 0, resumes: [], fresh: [], waiting: 0, serving: false }
    gates.set(id, gate)
  }
  return gate
}

function forgetIdle(): void {
  const now = performance.now()
  for (const [id, gate] of gates) if (gate.waiting === 0 && gate.restUntil < now) gates.delete(id)
}

/**
 * Lets the gate's waiting work go one at a time, each after the rest its account owes. One turn of the loop
 * first: the work let go before has run and been charged by then, so the rest counts it.
 */
async function serve(gate: Gate): Promise<void> {
  gate.serving = true
  while (gate.waiting > 0) {
    await nextTurn()
    const rest = gate.restUntil - performance.now()
    if (rest > 0) await sleep(rest)
    const next = gate.resumes.shift() ?? gate.fresh.shift()
    gate.waiting--
    next?.()
  }
  gate.serving = false
}

function wait(gate: Gate, resuming: boolean): Promise<void> {
  gate.waiting++
  const mine = new Promise<void>((resolve) => (resuming ? gate.resumes : gate.fresh).push(resolve))
  if (!gate.serving) void serve(gate)
  return mine
}

function charge(id: string | undefined, gate: Gate, ms: number): void {
  const now = performance.now()
  const others = othersActive(id, now)
  if (others > 0) gate.restUntil = Math.max(gate.restUntil, now) + ms * REST * others
}

/** Resolves when it is the caller's turn to run one slice; report the slice's length with `spent` right after. */
export function turn(): Promise<void> {
  return wait(gateOf(currentAccount()?.id), true)
}

export function spent(ms: number): void {
  const id = currentAccount()?.id
  charge(id, gateOf(id), ms)
}

/**
 * Lets the caller's account take its turn: at once (undefined) unless it rests or has work waiting, else a promise
 * of its turn. Past the account's `queueLimit` of waiting work while other accounts are active, refuses it with
 * `WorkQueueFullError`; alone, its queue only takes turns with the loop: nobody else's share to protect.
 */
function admit(account: WorkAccount | undefined, gate: Gate): Promise<void> | undefined {
  const now = performance.now()
  if (gate.waiting === 0 && gate.restUntil - now < GRACE_MS) return undefined
  if (account && gate.waiting >= account.queueLimit && othersActive(account.id, now) > 0) {
    throw new WorkQueueFullError(
      `environment ${account.id} has ${gate.waiting} costly reads and writes waiting for their turn, its limit; retry shortly`,
    )
  }
  return wait(gate, false)
}

/**
 * Runs a costly read (a plan, whose later slices take their own turns) and charges its first slice: at once
 * unless its account rests or has work waiting, then after its turn (see `admit`).
 */
export function accounted<R>(work: () => R | Promise<R>): R | Promise<R> {
  const account = currentAccount()
  const gate = gateOf(account?.id)
  const run = (): R | Promise<R> => {
    const started = performance.now()
    try {
      return work()
    } finally {
      charge(account?.id, gate, performance.now() - started)
    }
  }
  const turnTaken = admit(account, gate)
  return turnTaken ? turnTaken.then(run) : run()
}

/**
 * A write's turn: taken as a read's (`accounted`), before the write is queued. Its work runs later, in the store's
 * batch, outside the request's context: `charge` is bound to the account now, to report how long the work took.
 */
export function writeTurn(): { turnTaken: Promise<void> | undefined; charge: (ms: number) => void } {
  const account = currentAccount()
  const gate = gateOf(account?.id)
  return { turnTaken: admit(account, gate), charge: (ms) => charge(account?.id, gate, ms) }
}
