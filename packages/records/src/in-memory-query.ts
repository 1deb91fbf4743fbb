import { find as mingoFind } from 'mingo'
import { afterFilter } from './keyset.js'
import { compileFilter } from './match.js'
import { compareRecords, type SortField } from './sort-order.js'
import type { Filter, Projection, StoredRecord } from './port.js'

export interface PageOptions {
  sort: SortField[]
  after?: StoredRecord
  skip?: number
  limit?: number
}

/** Filters, pages and orders candidate records with Mongo semantics (mingo for matching). */
export function pageInMemory(candidates: Iterable<StoredRecord>, filter: Filter, options: PageOptions): StoredRecord[] {
  const match = compileFilter(options.after ? { $and: [filter, afterFilter(options.sort, options.after)] } : filter)
  const matching: StoredRecord[] = []
  for (const record of candidates) if (match.test(record)) matching.push(record)
  matching.sort(compareRecords(options.sort))
  const start = options.skip ?? 0
  return matching.slice(start, options.limit === undefined ? undefined : start + options.limit)
}

export function project<T extends StoredRecord>(records: T[], projection: Projection | undefined): T[] {
  if (!projection || Object.keys(projection).length === 0) return records
  return mingoFind(records, {}, projection).all() as T[]
}
