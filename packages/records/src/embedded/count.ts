import type { Filter } from '../port.js'
import type { SortField } from '../sort-order.js'
import type { Engine } from './engine.js'
import { FilterTerms } from './filter-terms.js'
import { Budget } from './find-query.js'
import { narrowest, narrowness, planIndexes, usable, type IndexPlan } from './index-plans.js'
import { averageSize, entries, idRange, load, scan } from './reads.js'
import { PAUSE, type Pacer, type Steps } from './steps.js'

const ID_ORDER: SortField[] = [{ path: '_id', direction: 1 }]

/**
 * Counts matching records: `{}` from the collection's size (one read), a filter an index's bounds answer (an
 * equality prefix, a range after it) from the index entries alone (no record is read), anything else by matching
 * records (an index's candidates, else every record), refused when the records to match exceed the budget.
 */
export function* countSteps(engine: Engine, collection: string, given: Filter, pacer: Pacer): Steps<number> {
  const meta = engine.collection(collection)
  if (!meta) return 0
  const terms = new FilterTerms(given)
  if (terms.matchesAll) {
    engine.stats.reads++
    return engine.size(meta.id).count
  }
  const plan = narrowest(planIndexes(usable(meta.indexes), terms, ID_ORDER).filter((p) => narrowness(p) > 0))
  const budget = new Budget(
    engine.queryBudget,
    () => `count of this filter over this many records needs an index on ${terms.suggestedIndex([])}`,
  )
  if (!plan || !plan.exact) {
    const candidates = plan?.bounds
    // Without an index, the records of an `_id` range: counted from their keys when the range is the filter.
    const idTerm = plan ? undefined : terms.ranges.get('_id')
    const ids = idRange(meta.id, idTerm)
    const inRange = ids && engine.records.getKeysCount({ start: ids.low, end: ids.high })
    if (inRange !== undefined && idTerm?.exact === true && terms.paths.length === 1) {
      engine.stats.reads += inRange
      return inRange
    }
    const toMatch = candidates ? engine.entries.getKeysCount({ start: candidates[0], end: candidates[1] }) : inRange
    budget.check(toMatch === undefined ? engine.size(meta.id).bytes : toMatch * averageSize(engine, meta.id))
    const { matcher } = terms
    let count = 0
    const rows = candidates
      ? load(engine, meta.id, plan as IndexPlan, candidates, false, pacer)
      : scan(engine, meta.id, false, undefined, pacer, ids)
    for (const row of rows) {
      if (row === PAUSE) yield PAUSE
      else if (matcher.test(row.record)) count++
    }
    return count
  }
  const [start, end] = plan.bounds
  if (!plan.dedupe) {
    const count = engine.entries.getKeysCount({ start, end })
    engine.stats.reads += count
    return count
  }
  const ids = new Set<string>()
  for (const entry of entries(engine, plan.index, { start, end }, pacer)) {
    if (entry === PAUSE) {
      yield PAUSE
      continue
    }
    engine.stats.reads++
    ids.add(entry.id)
  }
  return ids.size
}
