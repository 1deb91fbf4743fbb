import { getPath, sortKey } from '../sort-order.js'
import { ENTRY_COST, PREFERENCE, walkCost, type AccessPath, type CandidatePath } from './access-paths.js'
import type { FindQuery } from './find-query.js'
import { compareKeys, keyedByValues, valuesKey } from './index-keys.js'
import type { IndexPlan } from './index-plans.js'
import { rankedEntries } from './ranked-entries.js'
import { averageSize, load, read } from './reads.js'
import type { Row } from './row.js'
import type { Steps } from './steps.js'

/** An index's candidates, not in the sort's order: a bounded heap, or every match sorted when all are wanted. */
export class IndexCandidates implements CandidatePath {
  readonly preference = PREFERENCE.candidates
  readonly holds = true
  /** Only the entries are read when the bounds answer the filter and a heap pages the candidates. */
  readonly #entriesOnly: boolean
  readonly perCandidate: number
  constructor(
    readonly query: FindQuery,
    readonly plan: IndexPlan,
  ) {
    this.#entriesOnly = plan.exact && query.pacer.pauses && query.wanted !== Infinity
    this.perCandidate = this.#entriesOnly ? ENTRY_COST : 1
  }

  count(most: number): number {
    const [start, end] = this.plan.bounds
    return this.query.engine.entries.getKeysCount(most === Infinity ? { start, end } : { start, end, limit: most })
  }

  cost(atMost: number): number {
    return this.count(Math.ceil(atMost / this.perCandidate) + 1) * this.perCandidate
  }

  *run(): Steps<Row[]> {
    const { query, plan } = this
    const { exact, bounds } = plan
    const { engine, collectionId, pacer } = query
    if (this.#entriesOnly) return yield* rankedEntries(query, plan, bounds)
    // An estimate from the range's size, when the index answers the filter (every entry is a match).
    const estimate = (): number => (exact ? this.count(Infinity) * averageSize(engine, collectionId) : 0)
    return yield* query.ranked(load(engine, collectionId, plan, bounds, false, pacer), exact, estimate)
  }
}

/**
 * A walk in an index's order, the sort's: about `skip + limit` entries when the index narrows the filter too
 * (then it costs nothing past the page), else records until `wanted` match.
 */
export class IndexWalk implements AccessPath {
  readonly preference: number
  readonly holds = false
  constructor(
    readonly query: FindQuery,
    readonly plan: IndexPlan,
    readonly narrows: boolean,
    readonly candidates: CandidatePath[],
  ) {
    this.preference = narrows ? PREFERENCE.narrowingWalk : PREFERENCE.walk
  }

  cost(): number {
    return this.narrows ? 0 : walkCost(this.query, this.candidates)
  }

  *run(): Steps<Row[]> {
    const { query, plan } = this
    const { engine, collectionId, pacer, after, skip, wanted } = query
    const [low, high] = plan.bounds
    // Entries and records are read in one snapshot, so when the bounds answer the filter every candidate matches.
    const { exact } = plan
    // Equalities on every field of a unique index name at most one record (a lookup by `externalId`, by name):
    // one read of the entry, without the generators and page bookkeeping of a scan.
    if (
      exact &&
      keyedByValues(plan.index) &&
      plan.prefixFields.length === Object.keys(plan.index.spec.fields).length &&
      !after
    ) {
      if (skip > 0 || wanted === 0) return []
      engine.stats.reads++
      const id = engine.entries.get(low)
      const row = typeof id === 'string' ? read(engine, collectionId, id) : undefined
      return row ? [row] : []
    }
    if (!after) {
      return yield* plan.reverse
        ? query.take(load(engine, collectionId, plan, [high, low], true, pacer), exact)
        : query.take(load(engine, collectionId, plan, [low, high], false, pacer), exact)
    }

    // Matches tie on the prefix fields, so `after` sits in the range when it holds the filter's values on
    // those the sort names; its place there is given by its values on the remaining fields, then `_id`.
    const fields = Object.keys(plan.index.spec.fields)
    const sorted = new Set(query.sort.map(({ path }) => path))
    const afterRecord = after.record
    const afterInRange = plan.prefixFields.every(
      (path, i) =>
        !sorted.has(path) ||
        JSON.stringify(sortKey(getPath(afterRecord, path))) === JSON.stringify(plan.prefix.slice(2 * i, 2 * i + 2)),
    )
    if (!afterInRange) return yield* new IndexCandidates(query, plan).run()
    const values = [
      plan.index.id,
      ...plan.prefix,
      ...valuesKey(fields.slice(plan.prefixFields.length).map((path) => getPath(afterRecord, path))),
    ]
    const from = keyedByValues(plan.index) ? values : [...values, after.id]
    // Within a range, the walk starts at `after` or at the range's near end, whichever comes later.
    if (plan.reverse) {
      if (compareKeys(from, low) < 0) return []
      return yield* compareKeys(from, high) < 0
        ? query.take(load(engine, collectionId, plan, [from, low], true, pacer, after.id), exact)
        : query.take(load(engine, collectionId, plan, [high, low], true, pacer), exact)
    }
    if (compareKeys(from, high) >= 0) return []
    return yield* compareKeys(from, low) >= 0
      ? query.take(load(engine, collectionId, plan, [from, high], false, pacer, after.id), exact)
      : query.take(load(engine, collectionId, plan, [low, high], false, pacer), exact)
  }
}
