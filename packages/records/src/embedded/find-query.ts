import { QueryTooLargeError } from '../errors.js'
import { sortInMemory, type PageOptions } from '../in-memory-query.js'
import { getPath, sortKey, type SortField } from '../sort-order.js'
import type { Engine } from './engine.js'
import type { FilterTerms } from './filter-terms.js'
import { pathInText } from './json-fields.js'
import { averageSize } from './reads.js'
import type { Row } from './row.js'
import { PAUSE, type Pacer, type Steps } from './steps.js'
import { TopK, valuesOrder, type SortValues } from './top-k.js'

/** `PageOptions` with the record to page after as read: decoded only where its values are needed. */
export interface RowPageOptions extends Omit<PageOptions, 'after'> {
  after?: Row
}

const recordOf = (row: Row) => row.record

/**
 * The row's values of the sort's fields, as `SortValues`: read from its text (no decoding) unless `decoded`
 * (the record was decoded already, to be matched).
 */
export function rowValues(fields: SortField[], row: Row, decoded: boolean): SortValues {
  const values: SortValues = []
  for (const { path } of fields) {
    const value = path === '_id' ? row.id : decoded ? getPath(row.record, path) : pathInText(row.json, path)
    const [tag, key] = sortKey(value)
    values.push(tag, key)
  }
  return values
}

/** Text held or scanned by one query, refused past the engine's budget. */
export class Budget {
  #bytes = 0
  constructor(
    readonly limit: number,
    readonly refusal: () => string,
  ) {}

  /** Refuses up front when the estimate is already past the budget. */
  check(estimate: number): void {
    if (estimate > this.limit) throw new QueryTooLargeError(this.refusal())
  }

  hold(row: Row): void {
    this.#bytes += row.json.length
    if (this.#bytes > this.limit) throw new QueryTooLargeError(this.refusal())
  }
}

/**
 * One find as the access paths run it: the parsed filter, the page wanted (`skip + limit` records past `after`),
 * the budget, and the ways every path pages its candidates: in the sort's order (`take`), in a bounded heap
 * (`ranked`), or all held and sorted (`inMemory`).
 */
export class FindQuery {
  readonly sort: SortField[]
  readonly after: Row | undefined
  readonly skip: number
  /** `skip + limit`: the records a page needs found. */
  readonly wanted: number
  /** Bytes of text the query may hold. */
  readonly budget: number
  #records: number | undefined

  constructor(
    readonly engine: Engine,
    readonly collectionId: number,
    readonly terms: FilterTerms,
    readonly options: RowPageOptions,
    readonly pacer: Pacer,
    budgeted: boolean,
  ) {
    this.sort = options.sort
    this.after = options.after
    this.skip = options.skip ?? 0
    this.wanted = options.limit === undefined ? Infinity : this.skip + options.limit
    this.budget = budgeted ? engine.queryBudget : Infinity
    if (this.skip > 0 && this.skip * averageSize(engine, collectionId) > this.budget) {
      throw new QueryTooLargeError(`skip ${this.skip} is past the query budget: page with \`after\` instead`)
    }
  }

  /** The collection's records, read once. */
  get records(): number {
    return (this.#records ??= this.engine.size(this.collectionId).count)
  }

  /** Whether the sort is `_id` alone: the primary key's order. */
  get idOrder(): boolean {
    return this.sort.length === 1 && this.sort[0]?.path === '_id'
  }

  /** Refuses a page of `wanted` records up front when their text would pass the budget. */
  checkPage(): void {
    new Budget(this.budget, () => this.refusal()).check(this.wanted * averageSize(this.engine, this.collectionId))
  }

  refusal(): string {
    const sorted = this.sort.filter(({ path }) => path !== '_id').map(({ path }) => `\`${path}\``)
    const what = sorted.length > 0 ? `sort on ${sorted.join(', ')}` : 'this query'
    return `${what} needs an index on ${this.terms.suggestedIndex(this.sort)}`
  }

  /** Sorts and pages matches held in memory. */
  page(matching: Row[]): Row[] {
    return sortInMemory(matching, { ...this.options, after: this.after?.record }, recordOf)
  }

  /** Pages off candidates already in order; `exact` when the candidates are the matches (no re-check, no decoding). */
  *take(candidates: Iterable<Row | typeof PAUSE>, exact = this.terms.matchesAll): Steps<Row[]> {
    const page: Row[] = []
    let passed = 0
    for (const row of candidates) {
      if (row === PAUSE) {
        yield PAUSE
        continue
      }
      if (page.length + passed >= this.wanted) break
      if (exact || this.terms.matcher.test(row.record)) {
        if (passed < this.skip) passed++
        else page.push(row)
      }
    }
    return page
  }

  /** Holds every match, within the budget, then sorts and pages them. */
  *inMemory(candidates: Iterable<Row | typeof PAUSE>, estimate: number): Steps<Row[]> {
    const budget = new Budget(this.budget, () => this.refusal())
    budget.check(estimate)
    const matching: Row[] = []
    for (const row of candidates) {
      if (row === PAUSE) {
        yield PAUSE
        continue
      }
      if (!this.terms.matcher.test(row.record)) continue
      budget.hold(row)
      matching.push(row)
    }
    return this.page(matching)
  }

  /**
   * Pages candidates not in the sort's order (an index narrowing them) by keeping the first `skip + limit`
   * past `after` in a bounded heap: the budget applies to what it holds, not to the candidates. When the index
   * answers the filter (`exact`), each candidate's sort values are read from its text and no record is decoded;
   * else each is decoded to be matched. Falls back to `inMemory` when every match is wanted.
   */
  *ranked(candidates: Iterable<Row | typeof PAUSE>, exact: boolean, estimate: () => number): Steps<Row[]> {
    if (this.wanted === Infinity) return yield* this.inMemory(candidates, estimate())
    this.checkPage()
    const { sort } = this
    const order = valuesOrder(sort)
    const top = new TopK<Row>(this.wanted, order)
    const past = this.after && rowValues(sort, this.after, true)
    for (const row of candidates) {
      if (row === PAUSE) {
        yield PAUSE
        continue
      }
      if (!exact && !this.terms.matcher.test(row.record)) continue
      const values = rowValues(sort, row, !exact)
      if (past && order(values, past) <= 0) continue
      top.offer(row, values)
    }
    return top.sorted().slice(this.skip)
  }
}
