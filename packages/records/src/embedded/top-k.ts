import { compareOperands, compareText, sortOperand, TypeTag, type Operand, type SortField } from '../sort-order.js'

/** A candidate's values of the sort's fields, each as `sortKey` gives it, flattened: `[tag, key, tag, key, ...]`. */
export type SortValues = Array<number | string>

/**
 * The order `sortInMemory` gives, on values read as `SortValues`. An array's key is its JSON text; which of its
 * elements the sort compares depends on the field's direction, so it is parsed here, once per candidate's values.
 */
export function valuesOrder(fields: SortField[]): (a: SortValues, b: SortValues) => number {
  const parsed = new WeakMap<SortValues, Operand[]>()
  const operand = (values: SortValues, i: number): Operand => {
    if (values[2 * i] !== TypeTag.array) return [values[2 * i] as number, values[2 * i + 1] as number | string]
    let operands = parsed.get(values)
    if (!operands) parsed.set(values, (operands = []))
    return (operands[i] ??= sortOperand(JSON.parse(values[2 * i + 1] as string), (fields[i] as SortField).direction))
  }
  return (a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const tagA = a[2 * i] as number
      const tagB = b[2 * i] as number
      let order: number
      if (tagA === TypeTag.array || tagB === TypeTag.array) {
        order = compareOperands(operand(a, i), operand(b, i))
      } else {
        order = tagA - tagB
        const keyA = a[2 * i + 1] as number | string
        const keyB = b[2 * i + 1] as number | string
        if (order === 0 && keyA !== keyB) {
          order = typeof keyA === 'string' && typeof keyB === 'string' ? compareText(keyA, keyB) : keyA < keyB ? -1 : 1
        }
      }
      if (order !== 0) return order * (fields[i] as SortField).direction
    }
    return 0
  }
}

/**
 * The first `size` of the items offered, under `compare`: a bounded max-heap, so memory holds `size` items
 * whatever the number offered, and an item past the worst kept costs one comparison.
 */
export class TopK<T> {
  readonly #heap: Array<{ item: T; values: SortValues }> = []
  constructor(
    readonly size: number,
    readonly compare: (a: SortValues, b: SortValues) => number,
  ) {}

  /** Whether an item of these values would be kept (so its record is worth reading whole). */
  wants(values: SortValues): boolean {
    const worst = this.#heap[0]
    return this.#heap.length < this.size || (worst !== undefined && this.compare(values, worst.values) < 0)
  }

  offer(item: T, values: SortValues): void {
    if (!this.wants(values)) return
    const heap = this.#heap
    if (heap.length < this.size) {
      heap.push({ item, values })
      this.#up(heap.length - 1)
    } else {
      heap[0] = { item, values }
      this.#down(0)
    }
  }

  /** The items kept, in order. */
  sorted(): T[] {
    return this.#heap.sort((a, b) => this.compare(a.values, b.values)).map(({ item }) => item)
  }

  #worse(i: number, j: number): boolean {
    return (
      this.compare((this.#heap[i] as { values: SortValues }).values, (this.#heap[j] as { values: SortValues }).values) >
      0
    )
  }

  #swap(i: number, j: number): void {
    const heap = this.#heap
    const held = heap[i] as (typeof heap)[number]
    heap[i] = heap[j] as (typeof heap)[number]
    heap[j] = held
  }

  #up(at: number): void {
    let i = at
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.#worse(i, parent)) return
      this.#swap(i, parent)
      i = parent
    }
  }

  #down(at: number): void {
    const length = this.#heap.length
    let i = at
    for (;;) {
      const left = 2 * i + 1
      const right = left + 1
      let worst = i
      if (left < length && this.#worse(left, worst)) worst = left
      if (right < length && this.#worse(right, worst)) worst = right
      if (worst === i) return
      this.#swap(i, worst)
      i = worst
    }
  }
}
