import { openEmbeddedStore } from './embedded/embedded-store.js'
import { openMongoStore } from './mongo/mongo-store.js'
import type { RecordStore } from './port.js'

export interface RecordStoreOptions {
  /** The embedded store lives under `<dataDir>/records`. */
  dataDir: string
  /** When set, records live in Mongo instead. */
  mongoUrl?: string
  mongoDb?: string
}

export async function openRecordStore(options: RecordStoreOptions): Promise<RecordStore> {
  if (options.mongoUrl) return openMongoStore(options.mongoUrl, options.mongoDb ?? 'quire')
  return openEmbeddedStore(options.dataDir)
}
