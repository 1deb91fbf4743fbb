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
}

export async function openRecordStore(options: RecordStoreOptions): Promise<RecordStore> {
  if (options.mongoUrl) return openMongoStore(options.mongoUrl, options.mongoDb ?? 'quire')
  return openEmbeddedStore(options.dataDir, { compressionDictionary: options.compressionDictionary })
}
