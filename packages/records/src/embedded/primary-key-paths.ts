import { compileFilter } from '../match.js'
import type { Filter } from '../port.js'
import { PREFERENCE, walkCost, type AccessPath, type CandidatePath } from './access-paths.js'
import type { FindQuery } from './find-query.js'
import { read, scan, type IdRange } from './reads.js'
import type { Row } from './row.js'
import type { Steps } from './steps.js'

/** The record an `_id` equality names: one read. */
export class PrimaryKeyRead implements AccessPath {
  readonly preference = PREFERENCE.read
  readonly holds = false
  constructor(
    readonly query: FindQuery,
    readonly id: string,
  ) {}

  cost(): number {
    return 0
  }

  *run(): Steps<Row[]> {
    const { query } = this
    const row = read(query.engine, query.collectionId, this.id)
    const { filter } = query.terms
    if (!query.after && query.skip === 0 && query.terms.paths.length === 1) return row && query.wanted > 0 ? [row] : []
    // The read answered the `_id` term. Matching the rest alone compiles one filter for all ids, not one per id.
    const rest: Filter = { ...filter }
    delete rest._id
    return query.page(row && compileFilter(rest).test(row.record) ? [row] : [])
  }
}

/** The primary key in `_id` order (of an `_id` range, with one), read until `wanted` match. */
export class PrimaryKeyWalk implements AccessPath {
  readonly preference = PREFERENCE.walk
  readonly holds = false
  constructor(
    readonly query: FindQuery,
    readonly ids: IdRange | undefined,
    readonly exact: boolean,
    readonly candidates: CandidatePath[],
  ) {}

  /** The records of its range, or fewer when `wanted` matches are met before (see `walkCost`). */
  cost(atMost: number): number {
    const inRange = idCount(this.query, this.ids, Math.ceil(atMost) + 1)
    return this.candidates.length > 0 ? Math.min(inRange, walkCost(this.query, this.candidates)) : inRange
  }

  run(): Steps<Row[]> {
    const { engine, collectionId, pacer, sort, after } = this.query
    const reverse = sort[0]?.direction === -1
    return this.query.take(scan(engine, collectionId, reverse, after?.id, pacer, this.ids), this.exact)
  }
}

/** The records of an `_id` range, not in the sort's order, each matched. */
export class IdCandidates implements CandidatePath {
  readonly preference = PREFERENCE.candidates
  readonly holds = true
  readonly perCandidate = 1
  constructor(
    readonly query: FindQuery,
    readonly ids: IdRange,
    readonly exact: boolean,
  ) {}

  count(most: number): number {
    return idCount(this.query, this.ids, most)
  }

  cost(atMost: number): number {
    return this.count(Math.ceil(atMost) + 1)
  }

  run(): Steps<Row[]> {
    const { engine, collectionId, pacer } = this.query
    return this.query.ranked(scan(engine, collectionId, false, undefined, pacer, this.ids), this.exact, () => 0)
  }
}

/** Records in the `_id` range, counted from their keys up to `most` (without a range, the collection's). */
function idCount(query: FindQuery, ids: IdRange | undefined, most: number): number {
  if (!ids) return query.records
  const keys = query.engine.records.getKeys({ start: ids.low, end: ids.high, limit: most })[Symbol.iterator]()
  let counted = 0
  while (!keys.next().done) counted++
  return counted
}

/** Every record of the collection, matched, held and sorted (within the budget). */
export class FullScan implements AccessPath {
  readonly preference = PREFERENCE.scan
  readonly holds = true
  constructor(readonly query: FindQuery) {}

  cost(): number {
    return this.query.records
  }

  run(): Steps<Row[]> {
    const { engine, collectionId, pacer, terms } = this.query
    const estimate = terms.matchesAll ? engine.size(collectionId).bytes : 0
    return this.query.inMemory(scan(engine, collectionId, false, undefined, pacer), estimate)
  }
}
