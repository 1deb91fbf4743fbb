import type { KeyPair } from '@quire/auth'
import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import type { ServiceManifest, SharedCounts } from '@quire/service-kit'
import { service as documents } from '@quire/documents-service'
import { service as packages } from '@quire/packages-service'
import { service as users } from '@quire/users-service'
import type { Config } from './config.js'

/** What locally mounted services share: one store, one file store, one key pair, and the server's counts. */
export interface LocalResources {
  store: RecordStore
  files: FileStore
  keys: KeyPair
  counts?: SharedCounts
}

/** Every service the gateway fronts, and the variable giving its URL when it runs elsewhere. */
export const SERVICES: readonly {
  manifest: ServiceManifest<LocalResources & { config: Config }>
  urlVariable: 'QUIRE_DOCUMENTS_URL' | 'QUIRE_USERS_URL' | 'QUIRE_PACKAGES_URL'
}[] = [
  { manifest: documents, urlVariable: 'QUIRE_DOCUMENTS_URL' },
  { manifest: users, urlVariable: 'QUIRE_USERS_URL' },
  { manifest: packages, urlVariable: 'QUIRE_PACKAGES_URL' },
]
