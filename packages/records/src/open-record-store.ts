import { openEmbeddedStore } from './embedded/embedded-store.js'
import { openMongoStore } from './mongo/mongo-store.js'
import type { RecordStore } from './port.js'

export interface RecordStoreOptions {
  /** The embedded store lives under `<dataDir>/records`. */
  dataDir: string
  /** When set, records live in Mongo instead. */
  mongoUrl?: string
  mongoDb?: string
  /**
   * The embedded store compresses records against it: give the fields most records repeat. Recorded by the
   * first open of a data dir, which every later open then uses (whatever it is given).
   */
  compressionDictionary?: Buffer
  /**
   * Bytes of record text one query may hold in memory (a sort no index serves, a `skip`) or scan for a `count`
   * no index answers; past it the query is refused with `QueryTooLargeError`, whose message names the index it
   * lacks. Default 32 MiB. Embedded only: Mongo applies its own limit to sorts (100 MB), refused alike.
   */
  queryMemoryBudget?: number
  /**
   * Embedded only: bytes of the store's file read ahead into the kernel's page cache at open, so that the first
   * requests after a start find their pages in memory. Default 0: none.
   */
  prewarmBytes?: number
  /** Embedded only: top-level fields no query sorts by, left out of what index entries carry (`EngineOptions`). */
  uncarriedFields?: readonly string[]
  /** MongoDB only: the server stops any one operation after this many ms (`maxTimeMS`). Default 10 s. */
  mongoMaxTimeMs?: number
}

export async function openRecordStore(options: RecordStoreOptions): Promise<RecordStore> {
  if (options.mongoUrl) {
    return openMongoStore(options.mongoUrl, options.mongoDb ?? 'quire', options.mongoMaxTimeMs ?? 10_000)
  }
  return openEmbeddedStore(options.dataDir, {
    compressionDictionary: options.compressionDictionary,
    queryMemoryBudget: options.queryMemoryBudget,
    prewarmBytes: options.prewarmBytes,
    uncarriedFields: options.uncarriedFields,
  })
}
