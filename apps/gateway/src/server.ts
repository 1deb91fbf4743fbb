import cluster from 'node:cluster'
import { loadKeyPair, useRunTokenKey } from '@quire/auth'
import { RECORDS_COMPRESSION_DICTIONARY, RECORDS_UNCARRIED_FIELDS, s3Options } from '@quire/documents-service'
import { openFileStore } from '@quire/files'
import { openRecordStore, tightenDataDir } from '@quire/records'
import {
  countsOfPrimary,
  createServer,
  diskSpaceCheck,
  loadConfig,
  localCounts,
  serverOptionsOf,
  startServer,
  workerChannel,
} from '@quire/service-kit'
import { app, upstreamsFrom, type LocalResources } from './app.js'
import { ConfigSchema, type Config } from './config.js'
import { processCountOf, supervise } from './processes.js'

const config = loadConfig(ConfigSchema)
const count = processCountOf(config.QUIRE_PROCESSES)

/** For whoever started it: where to go next (the log says where it listens, in JSON). */
function printReady(port: number): void {
  const base = `http://localhost:${port}`
  const admin = config.QUIRE_ADMIN_USERNAME
  process.stdout.write(
    [
      '',
      `Quire is ready: the API at ${base}/api/v2, the console at ${base}/console, the API reference at ${base}/docs.`,
      `Forgot the password of ${admin}? \`npx quire password reset ${admin}\` (\`quire ...\` in an image).`,
      '',
      '',
    ].join('\n'),
  )
}

async function serve(config: Config): Promise<void> {
  const upstreams = upstreamsFrom(config)
  const server = createServer(serverOptionsOf(config))
  let local: LocalResources | undefined
  if (Object.values(upstreams).includes('local')) {
    // Before anything is opened, so the one line tells what an earlier version left open to other local users.
    const tightened = tightenDataDir(config.QUIRE_DATA_DIR)
    if (tightened.length > 0) {
      server.log.warn(
        { paths: tightened },
        'the data dir was readable by other local users: made owner-only (0700/0600)',
      )
    }
    const store = await openRecordStore({
      dataDir: config.QUIRE_DATA_DIR,
      prewarmBytes: config.QUIRE_PREWARM_MB * 2 ** 20,
      mongoUrl: config.QUIRE_MONGO_URL,
      mongoDb: config.QUIRE_MONGO_DB,
      compressionDictionary: RECORDS_COMPRESSION_DICTIONARY,
      uncarriedFields: RECORDS_UNCARRIED_FIELDS,
    })
    const files = await openFileStore({ dataDir: config.QUIRE_DATA_DIR, s3: s3Options(config) })
    // Scripts' run tokens, from any service of the deployment (some mounted here, others apart).
    if (config.QUIRE_RUN_TOKEN_KEY) useRunTokenKey(Buffer.from(config.QUIRE_RUN_TOKEN_KEY, 'base64'))
    const keys = await loadKeyPair({
      dataDir: config.QUIRE_DATA_DIR,
      publicKey: config.QUIRE_JWT_PUBLIC_KEY,
      privateKey: config.QUIRE_JWT_PRIVATE_KEY,
      secretsKey: config.QUIRE_SECRETS_KEY,
    })
    local = { store, files, keys }
    server.addHook('onClose', async () => {
      await files.close()
      await store.close()
    })
    server.addReadinessCheck('records', () => store.ping())
    server.addReadinessCheck('files', () => files.ping())
    server.addReadinessCheck('disk', diskSpaceCheck(config.QUIRE_DATA_DIR, config.QUIRE_MIN_FREE_DISK_MB))
  }
  // A process of several counts budgets and caps with the others, through the primary.
  const counts = cluster.isWorker ? countsOfPrimary(workerChannel()) : localCounts()
  await server.register(app, { config, upstreams, local, counts })
  await startServer(server, config.QUIRE_PORT, config.QUIRE_HOST)
  // The primary of several says when they all listen. (A worker whose primary is killed exits: node:cluster.)
  if (cluster.isWorker) return
  const address = server.server.address()
  if (address !== null && typeof address === 'object') printReady(address.port)
}

if (cluster.isPrimary && count > 1) {
  await supervise({ count, log: createServer(serverOptionsOf(config)).log, ready: printReady })
} else {
  await serve(config)
}
