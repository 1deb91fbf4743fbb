import { join } from 'node:path'
import { StoreUnavailableError } from '../errors.js'
import type { Collection, RecordStore, StoredRecord, Transaction } from '../port.js'
import { EmbeddedCollection } from './embedded-collection.js'
import { EmbeddedTransaction } from './embedded-transaction.js'
import { Engine, type EngineOptions } from './engine.js'

export interface EmbeddedRecordStore extends RecordStore {
  /** Records and index entries read so far; lets tests see whether a query used an index. */
  readonly stats: { readonly reads: number }
  /**
   * Resolves once the records and index entries of dropped collections and indexes are deleted: a drop removes
   * them for readers at once and leaves their deletion to a background sweep.
   */
  sweep(): Promise<void>
}

/** The embedded adapter: lmdb under `<dataDir>/records`, shareable by several processes. */
export function openEmbeddedStore(dataDir: string, options: EngineOptions = {}): EmbeddedRecordStore {
  const engine = new Engine(join(dataDir, 'records'), options)
  return {
    stats: engine.stats,
    collection<T extends StoredRecord = StoredRecord>(name: string): Collection<T> {
      return new EmbeddedCollection<T>(engine, name)
    },
    async transaction<R>(work: (tx: Transaction) => Promise<R>): Promise<R> {
      const tx = new EmbeddedTransaction(engine)
      const result = await work(tx)
      await tx.commit()
      return result
    },
    async dropCollection(name: string): Promise<void> {
      await engine.removeCollection(name)
    },
    sweep: () => engine.sweep(),
    async ping(): Promise<void> {
      try {
        engine.ping()
      } catch (error) {
        throw new StoreUnavailableError('the embedded store does not answer', { cause: error })
      }
    },
    async close(): Promise<void> {
      await engine.close()
    },
  }
}
