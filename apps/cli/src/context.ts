import { RECORDS_COMPRESSION_DICTIONARY, RECORDS_UNCARRIED_FIELDS, s3Options } from '@quire/documents-service'
import { openFileStore, type FileStore } from '@quire/files'
import { openRecordStore, type RecordStore } from '@quire/records'
import { loadConfig } from '@quire/service-kit'
import { CliConfigSchema, type CliConfig } from './config.js'
import type { Io } from './io.js'

/** Who the records say made a change done from the command line. */
export const ACTOR = 'quire-cli'

export const readConfig = (io: Io): CliConfig => loadConfig(CliConfigSchema, io.env)

/** The store as the services open it: the same dictionary, so records written here read there. */
const openStore = (config: CliConfig): Promise<RecordStore> =>
  openRecordStore({
    dataDir: config.QUIRE_DATA_DIR,
    mongoUrl: config.QUIRE_MONGO_URL,
    mongoDb: config.QUIRE_MONGO_DB,
    compressionDictionary: RECORDS_COMPRESSION_DICTIONARY,
    uncarriedFields: RECORDS_UNCARRIED_FIELDS,
  })

const openFiles = (config: CliConfig): Promise<FileStore> =>
  openFileStore({ dataDir: config.QUIRE_DATA_DIR, s3: s3Options(config) })

/** Runs `work` with the store open, and closes it whatever happens. */
export async function withStore<R>(config: CliConfig, work: (store: RecordStore) => Promise<R>): Promise<R> {
  const store = await openStore(config)
  try {
    return await work(store)
  } finally {
    await store.close()
  }
}

export async function withFiles<R>(config: CliConfig, work: (files: FileStore) => Promise<R>): Promise<R> {
  const files = await openFiles(config)
  try {
    return await work(files)
  } finally {
    await files.close()
  }
}
