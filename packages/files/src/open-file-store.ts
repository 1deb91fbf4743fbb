import { openLocalStore } from './local-store.js'
import { openMinioStore, type S3Options } from './minio-store.js'
import type { FileStore } from './port.js'

export interface FileStoreOptions {
  /** The local store lives under `<dataDir>/files`. */
  dataDir: string
  /** When set, files live in this S3-compatible bucket instead. */
  s3?: S3Options
}

export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  return options.s3 ? openMinioStore(options.s3) : openLocalStore(options.dataDir)
}
