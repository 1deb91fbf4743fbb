import type { Filter } from '../port.js'
import { cheapest, runOrWalk, type AccessPath, type CandidatePath } from './access-paths.js'
import type { Engine } from './engine.js'
import { FilterTerms } from './filter-terms.js'
import { FindQuery, type RowPageOptions } from './find-query.js'
import { narrowest, narrowness, planIndexes, usable } from './index-plans.js'
import { IndexCandidates, IndexWalk } from './index-paths.js'
import { FullScan, IdCandidates, PrimaryKeyRead, PrimaryKeyWalk } from './primary-key-paths.js'
import { idRange } from './reads.js'
import type { Row } from './row.js'
import type { Pacer, Steps } from './steps.js'

/**
 * Answers a find from the cheapest access path (`access-paths.ts`): a read by `_id`; a walk in an index's order,
 * the sort's (about `skip + limit` entries when it narrows the filter too); the primary key in `_id` order;
 * the candidates of an index narrowing the filter (an equality prefix, a range after it) or of an `_id` range,
 * ranked in a heap; or else a scan. Every candidate is re-checked against the whole filter, unless the bounds
 * answer it. A sort no index serves holds every match in memory, within the budget, unless a walk in the sort's
 * order answers instead; so does a `skip`, estimated up front.
 */
export function* findSteps(
  engine: Engine,
  collection: string,
  given: Filter,
  options: RowPageOptions,
  pacer: Pacer,
  budgeted = true,
): Steps<Row[]> {
  const meta = engine.collection(collection)
  if (!meta) return []
  const terms = new FilterTerms(given)
  const query = new FindQuery(engine, meta.id, terms, options, pacer, budgeted)
  const { _id: id } = terms.filter
  if (typeof id === 'string') return yield* new PrimaryKeyRead(query, id).run()

  const plans = planIndexes(usable(meta.indexes), terms, query.sort)
  const narrowing = narrowest(plans.filter((plan) => !plan.ordered && narrowness(plan) > 0))
  const ordered = narrowest(plans.filter((plan) => plan.ordered))
  const idTerm = terms.ranges.get('_id')
  const ids = idRange(meta.id, idTerm)
  /** Every record of the `_id` range matches: the filter is that range alone (or nothing). */
  const idsExact = terms.matchesAll || (ids !== undefined && idTerm?.exact === true && terms.paths.length === 1)

  const candidates: CandidatePath[] = narrowing ? [new IndexCandidates(query, narrowing)] : []
  const narrowingWalk = ordered !== undefined && narrowness(ordered) > 0
  let walk: AccessPath | undefined
  if (narrowingWalk) walk = new IndexWalk(query, ordered, true, candidates)
  else if (query.idOrder) walk = new PrimaryKeyWalk(query, ids, idsExact, candidates)
  else {
    if (ids) candidates.push(new IdCandidates(query, ids, idsExact))
    if (ordered) walk = new IndexWalk(query, ordered, false, candidates)
  }
  // A walk that narrows the filter too reads about the page alone: costed first, the others count no further.
  const paths: AccessPath[] = walk ? (narrowingWalk ? [walk, ...candidates] : [...candidates, walk]) : candidates
  if (paths.length === 0) paths.push(new FullScan(query))
  const best = cheapest(paths) as AccessPath
  return yield* runOrWalk(best, walk)
}
