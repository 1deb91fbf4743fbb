import { chmod, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { open } from 'lmdb'
import { StoreUnavailableError } from '../errors.js'
import type { Collection, RecordStore, StoredRecord, Transaction } from '../port.js'
import { EmbeddedCollection } from './embedded-collection.js'
import { EmbeddedTransaction } from './embedded-transaction.js'
import { Engine, type EngineOptions } from './engine.js'
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, privateStoreDir } from './private-modes.js'

export interface EmbeddedRecordStore extends RecordStore {
  /** Records and index entries read so far; lets tests see whether a query used an index. */
  readonly stats: { readonly reads: number }
  /**
   * Writes a consistent copy of the store into another data dir (one lmdb read transaction: every commit before
   * it and none after), while this and other processes keep reading and writing. `openEmbeddedStore(dataDir)`
   * opens the copy. The data dir must not hold a store yet.
   */
  backup(dataDir: string): Promise<void>
  /**
   * Resolves once the records and index entries of dropped collections and indexes are deleted: a drop removes
   * them for readers at once and leaves their deletion to a background sweep.
   */
  sweep(): Promise<void>
  /**
   * Resolves once the index work running in the background is done: `ensureIndex` of an index whose entries
   * carry stale values resolves at once and writes them again meanwhile.
   */
  indexWork(): Promise<void>
}

/**
 * The embedded adapter: lmdb under `<dataDir>/records`, shareable by several processes. The data dir and the
 * store's folder are owner-only (0700) and its files 0600, those of an existing install tightened at open.
 */
export function openEmbeddedStore(dataDir: string, options: EngineOptions = {}): EmbeddedRecordStore {
  const path = privateStoreDir(dataDir)
  const engine = new Engine(path, options)
  return {
    stats: engine.stats,
    async backup(target: string): Promise<void> {
      const copy = join(target, 'records')
      await mkdir(copy, { recursive: true, mode: PRIVATE_DIR_MODE })
      // lmdb-js shares one environment per file within a process and counts its openers: this handle is the
      // engine's environment, and closing it leaves the engine's open. Read-only: with size options the open
      // takes the write lock, and deadlocks against a write of this process in flight.
      const env = open({ path, readOnly: true })
      try {
        await env.backup(copy, false)
        // lmdb creates the copy 0666 less the umask.
        await chmod(join(copy, 'data.mdb'), PRIVATE_FILE_MODE)
      } finally {
        await env.close()
      }
    },
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
    indexWork: () => engine.indexWork(),
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
