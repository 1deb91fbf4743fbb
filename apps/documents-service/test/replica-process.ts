/**
 * One more process of the documents service on a data directory another already serves, as a second replica (or
 * a second all-in-one on the same disk) runs: `node <loader> replica-process.ts <dataDir> <keys.json>`. It prints
 * its port once listening and serves until its stdin closes.
 */
import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { Value } from '@sinclair/typebox/value'
import { openFileStore } from '@quire/files'
import { openRecordStore } from '@quire/records'
import { createServer, mountService } from '@quire/service-kit'
import { DocumentsConfigSchema, service, type DocumentsConfig } from '../src/service.js'

const [dataDir, keysFile] = process.argv.slice(2)
if (!dataDir || !keysFile) throw new Error('usage: replica-process.ts <dataDir> <keys.json>')
const written = JSON.parse(await readFile(keysFile, 'utf8')) as { publicKey: string; secretsKey: string }
const keys = { publicKey: written.publicKey, secretsKey: Buffer.from(written.secretsKey, 'base64') }
const store = await openRecordStore({ dataDir })
const files = await openFileStore({ dataDir })
const config = Value.Default(DocumentsConfigSchema, {
  QUIRE_WEBHOOKS_ALLOW_PRIVATE: true,
  QUIRE_UPLOAD_DIR: `${dataDir}/replica-uploads`,
}) as DocumentsConfig
const server = createServer({ logLevel: 'silent' })
await mountService(server, service, { dataDir, store, files, keys, config })
await server.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${(server.server.address() as AddressInfo).port}\n`)
process.stdin.resume()
process.stdin.on('end', async () => {
  await server.close()
  await files.close()
  await store.close()
  process.exit(0)
})
