import { loadKeyPair, useRunTokenKey } from '@quire/auth'
import { openFileStore } from '@quire/files'
import { openRecordStore } from '@quire/records'
import {
  createServer,
  serverOptionsOf,
  diskSpaceCheck,
  loadConfig,
  mountService,
  openApiPlugin,
  startServer,
} from '@quire/service-kit'
import { ConfigSchema, s3Options } from './config.js'
import { RECORDS_COMPRESSION_DICTIONARY, RECORDS_UNCARRIED_FIELDS, service } from './service.js'

const config = loadConfig(ConfigSchema)
const store = await openRecordStore({
  dataDir: config.QUIRE_DATA_DIR,
  prewarmBytes: config.QUIRE_PREWARM_MB * 2 ** 20,
  mongoUrl: config.QUIRE_MONGO_URL,
  mongoDb: config.QUIRE_MONGO_DB,
  compressionDictionary: RECORDS_COMPRESSION_DICTIONARY,
  uncarriedFields: RECORDS_UNCARRIED_FIELDS,
})
const files = await openFileStore({ dataDir: config.QUIRE_DATA_DIR, s3: s3Options(config) })
// Scripts' run tokens, from any service of the deployment.
if (config.QUIRE_RUN_TOKEN_KEY) useRunTokenKey(Buffer.from(config.QUIRE_RUN_TOKEN_KEY, 'base64'))
const keys = await loadKeyPair({
  dataDir: config.QUIRE_DATA_DIR,
  publicKey: config.QUIRE_JWT_PUBLIC_KEY,
  privateKey: config.QUIRE_JWT_PRIVATE_KEY,
})
const server = createServer(serverOptionsOf(config))
server.addHook('onClose', async () => {
  await files.close()
  await store.close()
})
server.addReadinessCheck('records', () => store.ping())
server.addReadinessCheck('files', () => files.ping())
server.addReadinessCheck('disk', diskSpaceCheck(config.QUIRE_DATA_DIR, config.QUIRE_MIN_FREE_DISK_MB))
await server.register(openApiPlugin, { title: 'Quire documents service' })
await mountService(server, service, { store, files, keys, config })
await startServer(server, config.QUIRE_PORT, config.QUIRE_HOST)
