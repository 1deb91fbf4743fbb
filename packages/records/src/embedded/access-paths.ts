import { QueryTooLargeError } from '../errors.js'
import type { FindQuery } from './find-query.js'
import type { Row } from './row.js'
import type { Steps } from './steps.js'

/**
 * What reading an index entry costs against reading and matching a record, to weigh an index's candidates
 * when only their entries are read (a heap over a range its bounds answer); the rest of it leaves room for the
 * heap's own work per entry.
 */
export const ENTRY_COST = 0.1

/**
 * One way to answer a find. `cost` is in records read (an entry read alone counts as `ENTRY_COST`); given
 * `atMost`, it may stop counting once past it (and give any larger number). On equal costs the lower
 * `preference` wins. `holds`: the path holds its candidates in memory, so past the budget a walk in the sort's
 * order, which holds only its page, answers instead.
 */
export interface AccessPath {
  readonly preference: number
  readonly holds: boolean
  cost(atMost: number): number
  run(): Steps<Row[]>
}

/** On equal costs: a read by `_id`, a walk that narrows, candidates, a walk that does not, a scan. */
export const PREFERENCE = { read: 0, narrowingWalk: 1, candidates: 2, walk: 3, scan: 4 } as const

/** The one comparison: the path of least cost, each costed only as far as the best one so far. */
export function cheapest<P extends AccessPath>(paths: P[]): P | undefined {
  if (paths.length < 2) return paths[0]
  let best: P | undefined
  let least = Infinity
  for (const path of paths) {
    const cost = path.cost(least)
    if (!best || cost < least || (cost === least && path.preference < best.preference)) {
      best = path
      least = cost
    }
  }
  return best
}

/** Runs `path`; past the budget with candidates held, `walk` answers instead. */
export function* runOrWalk(path: AccessPath, walk: AccessPath | undefined): Steps<Row[]> {
  if (!walk || walk === path || !path.holds) return yield* path.run()
  try {
    return yield* path.run()
  } catch (error) {
    if (!(error instanceof QueryTooLargeError)) throw error
  }
  return yield* walk.run()
}

/** Candidates not in the sort's order, counted: what a walk in the sort's order weighs against them. */
export interface CandidatePath extends AccessPath {
  /** What each candidate costs. */
  readonly perCandidate: number
  /** The candidates, counted up to `most` at least. */
  count(most: number): number
}

/**
 * What a walk in the sort's order reads until `wanted` match, were the matches spread evenly along it: `wanted`
 * of every `records / matches`, the matches estimated by the fewest candidates (a walk without them may read
 * every record). Counting stops where the walk would win whatever their number: past `most`, with
 * `most² × perCandidate = wanted × records`.
 */
export function walkCost(query: FindQuery, candidates: CandidatePath[]): number {
  const { wanted, records } = query
  if (candidates.length === 0) return records
  if (wanted === Infinity) return Infinity
  const matches = Math.min(
    ...candidates.map((path) => path.count(Math.floor(Math.sqrt((wanted * records) / path.perCandidate)) + 1)),
  )
  return matches === 0 ? Infinity : (wanted * records) / matches
}
