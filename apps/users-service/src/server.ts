import { loadKeyPair, useRunTokenKey } from '@quire/auth'
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
import { ConfigSchema } from './config.js'
import { service } from './service.js'

const config = loadConfig(ConfigSchema)
const store = await openRecordStore({
  dataDir: config.QUIRE_DATA_DIR,
  prewarmBytes: config.QUIRE_PREWARM_MB * 2 ** 20,
  mongoUrl: config.QUIRE_MONGO_URL,
  mongoDb: config.QUIRE_MONGO_DB,
})
// Scripts' run tokens, from any service of the deployment.
if (config.QUIRE_RUN_TOKEN_KEY) useRunTokenKey(Buffer.from(config.QUIRE_RUN_TOKEN_KEY, 'base64'))
const keys = await loadKeyPair({
  dataDir: config.QUIRE_DATA_DIR,
  privateKey: config.QUIRE_JWT_PRIVATE_KEY,
  publicKey: config.QUIRE_JWT_PUBLIC_KEY,
  secretsKey: config.QUIRE_SECRETS_KEY,
})
const server = createServer(serverOptionsOf(config))
server.addHook('onClose', () => store.close())
server.addReadinessCheck('records', () => store.ping())
server.addReadinessCheck('disk', diskSpaceCheck(config.QUIRE_DATA_DIR, config.QUIRE_MIN_FREE_DISK_MB))
await server.register(openApiPlugin, { title: 'Quire users service' })
await mountService(server, service, { store, keys, config })
await startServer(server, config.QUIRE_PORT, config.QUIRE_HOST)
