import type { Collection, IndexSpec, RecordStore, StoredRecord, Transaction } from './port.js'

/**
 * A collection as its owner declares it: its name, the type of its records and the indexes it keeps. The one
 * place a collection's name is written; everything else opens it through this.
 */
export interface CollectionSpec<T extends StoredRecord> {
  readonly name: string
  readonly indexes: readonly IndexSpec[]
  /** The collection in a store, or in a transaction (writes through it commit with the transaction). */
  in(store: RecordStore | Transaction): Collection<T>
}

export function defineCollection<T extends StoredRecord>(
  name: string,
  indexes: readonly IndexSpec[] = [],
): CollectionSpec<T> {
  return Object.freeze({ name, indexes, in: (store: RecordStore | Transaction) => store.collection<T>(name) })
}

/** Creates the declared indexes that are missing (idempotent); owners call it once at start. */
export async function ensureIndexes(store: RecordStore, specs: readonly CollectionSpec<StoredRecord>[]): Promise<void> {
  for (const spec of specs) {
    const collection = spec.in(store)
    for (const index of spec.indexes) await collection.ensureIndex(index)
  }
}
