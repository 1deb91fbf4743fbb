import { sortKey, type SortField } from '../sort-order.js'
import { coveredValue } from './covered-fields.js'
import { rowValues, type FindQuery } from './find-query.js'
import type { IndexKey } from './index-keys.js'
import type { IndexPlan } from './index-plans.js'
import { pathInText } from './json-fields.js'
import { KeptRange } from './kept-range.js'
import { entries, read } from './reads.js'
import type { Row } from './row.js'
import { PAUSE, type Steps } from './steps.js'
import { TopK, valuesOrder, type SortValues } from './top-k.js'

/**
 * A heap (`FindQuery.ranked`) over the candidates of an index range that answers the filter, read outside a
 * write: the range as the store keeps it (`engine.sortValues`), else its entries, each candidate's sort values
 * taken from what its entry carries (`covered-fields.ts`) or else read from its text (and the whole range kept
 * with them, brought to this process's writes made while it was read). Only the records ranked are read (`read`
 * again unless the heap holds them already): a candidate's record is read otherwise only when its entry lacks a
 * sort field (a nested path, a long string, an entry written before entries carried fields).
 */
export function* rankedEntries(query: FindQuery, plan: IndexPlan, [low, high]: [IndexKey, IndexKey]): Steps<Row[]> {
  const { engine, collectionId, sort, after, pacer } = query
  query.checkPage()
  const order = valuesOrder(sort)
  const top = new TopK<{ id: string; row: Row | undefined }>(query.wanted, order)
  const past = after && rowValues(sort, after, true)
  const offer = (id: string, values: SortValues, row?: Row): void => {
    // Most candidates fall past the heap's worst: told before anything is made for them.
    if ((!past || order(values, past) > 0) && top.wants(values)) top.offer({ id, row }, values)
  }
  const snapshot = engine.sortValues.snapshot(collectionId, engine.size(collectionId).stamp)
  const rangeKey = `${JSON.stringify([low, high])} ${sort.map(({ path }) => path).join(' ')}`
  const kept = snapshot.range(rangeKey)
  if (kept) {
    // Records written since the snapshot's stamp are read as the snapshot has them, not as kept.
    const hidden = snapshot.hidden()
    const { ids, values } = kept
    for (let i = 0; i < ids.length; i++) {
      if (!hidden.has(ids[i] as string)) offer(ids[i] as string, values[i] as SortValues)
    }
    for (const id of hidden) {
      const row = read(engine, collectionId, id)
      if (row && kept.holds(id, row.record)) offer(id, rowValues(sort, row, true), row)
    }
  } else {
    // Kept when every candidate's values were read, brought to the latest writes (`keepRange`).
    let whole: KeptRange | undefined = new KeptRange(plan.index, low, high, sort)
    const seen = plan.dedupe ? new Set<string>() : undefined
    // What entries carry is ranked on only while this version kept it through every write (engine.ts `carries`).
    const carried = plan.index.carries === 'kept' && engine.size(collectionId).carried
    for (const entry of entries(engine, plan.index, { start: low, end: high }, pacer, carried)) {
      if (entry === PAUSE) {
        // Paused like any scan, so other environments' requests run between its slices. The range may still be
        // kept while only this process's writes (which the cache follows) moved the collection's stamp.
        yield PAUSE
        if (!snapshot.follows(engine.size(collectionId).stamp)) whole = undefined
        continue
      }
      engine.stats.reads++
      const { id } = entry
      if (seen) {
        if (seen.has(id)) continue
        seen.add(id)
      }
      let row: Row | undefined
      const values: SortValues = []
      for (let i = 0; i < sort.length; i++) {
        const { path } = sort[i] as SortField
        let value = path === '_id' ? sortKey(id) : coveredValue(entry.covered, path)
        if (!value) {
          row ??= read(engine, collectionId, id)
          // Gone since its entry was read (a write between two slices): no longer a match.
          if (!row) break
          value = sortKey(pathInText(row.json, path))
        }
        values.push(value[0], value[1])
      }
      if (values.length < 2 * sort.length) {
        whole = undefined
        continue
      }
      whole?.add(id, values)
      offer(id, values, row)
    }
    if (whole) {
      snapshot.keepRange(
        rangeKey,
        whole,
        engine.size(collectionId).stamp,
        (id) => read(engine, collectionId, id)?.record,
      )
    }
  }
  const page: Row[] = []
  for (const { id, row } of top.sorted().slice(query.skip)) {
    const found = row ?? read(engine, collectionId, id)
    if (found) page.push(found)
  }
  return page
}
