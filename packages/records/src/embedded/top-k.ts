import type { SortField } from '../sort-order.js'

/** A candidate's values of the sort's fields, each as `sortKey` gives it, flattened: `[tag, key, tag, key, ...]`. */
export type SortValues = Array<number | string>

/** Strings in UTF-8 byte order, as `compareValues` and the index keys order them, without encoding them. */
function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // Below the surrogates, UTF-16 units order as code points do (and so as UTF-8 bytes do).
    if (x < 0xd800 && y < 0xd800) return x - y
    return Buffer.compare(Buffer.from(a), Buffer.from(b))
  }
  return a.length - b.length
}

/** The order `compareRecords(fields)` gives, on values read with `valuesOf`. */
export function valuesOrder(fields: SortField[]): (a: SortValues, b: SortValues) => number {
  return (a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const tagA = a[2 * i] as number
      const tagB = b[2 * i] as number
      let order = tagA - tagB
      if (order === 0) {
        const keyA = a[2 * i + 1] as number | string
        const keyB = b[2 * i + 1] as number | string
        if (keyA !== keyB) {
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
