import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import t from 'tap'
import S3rver from 's3rver'
import { FileStoreUnavailableError, openFileStore, type S3Options } from '../src/index.js'
import { fileStoreContract } from './file-store-contract.js'

t.test('minio adapter against s3rver', async (t) => {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: t.testdir() })
  const { port } = await server.run()
  t.teardown(() => server.close())
  fileStoreContract(t, () =>
    openFileStore({
      dataDir: t.testdirName,
      s3: {
        endPoint: '127.0.0.1',
        port,
        useSSL: false,
        accessKey: 'S3RVER',
        secretKey: 'S3RVER',
        bucket: 'quire-test',
        region: 'us-east-1',
      },
    }),
  )
})

t.test('replicas starting together all create the missing bucket, and ping sees it go', async (t) => {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: t.testdir() })
  const { port } = await server.run()
  t.teardown(() => server.close())
  const s3: S3Options = {
    endPoint: '127.0.0.1',
    port,
    useSSL: false,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    bucket: 'quire-race',
    region: 'us-east-1',
  }
  const stores = await Promise.all([1, 2, 3, 4].map(() => openFileStore({ dataDir: t.testdirName, s3 })))
  t.teardown(() => Promise.all(stores.map((store) => store.close())))
  const [first, second] = stores as [(typeof stores)[0], (typeof stores)[0]]
  await first.put('race', Readable.from([Buffer.from('one')]), { size: 3, contentType: 'text/plain' })
  t.equal(await second.exists('race'), true, 'every replica uses the same bucket')
  await t.resolves(second.ping())
  // Opening an existing bucket is the ordinary restart: no creation at all.
  const again = await openFileStore({ dataDir: t.testdirName, s3 })
  t.teardown(() => again.close())
  await first.remove('race')
  const { Client } = await import('minio')
  await new Client({ ...s3, endPoint: s3.endPoint }).removeBucket(s3.bucket)
  await t.rejects(second.ping(), FileStoreUnavailableError, 'ping fails once the bucket is gone')
})

const endPoint = process.env.QUIRE_TEST_S3_ENDPOINT
const accessKey = process.env.QUIRE_TEST_S3_ACCESS_KEY
const secretKey = process.env.QUIRE_TEST_S3_SECRET_KEY
// Also against a real S3 or MinIO when one is given (s3rver checks no secret keys, so credentials are tested there).
if (!endPoint || !accessKey || !secretKey) t.comment('QUIRE_TEST_S3_ENDPOINT is not set: no run against a real S3')
else {
  t.test('minio adapter against a real S3', async (t) => {
    const url = new URL(endPoint)
    fileStoreContract(t, () =>
      openFileStore({
        dataDir: t.testdirName,
        s3: {
          endPoint: url.hostname,
          port: url.port ? Number(url.port) : undefined,
          useSSL: url.protocol === 'https:',
          accessKey,
          secretKey,
          bucket: process.env.QUIRE_TEST_S3_BUCKET ?? 'quire-test',
        },
      }),
    )
  })
}

t.test("MinIO's storage-full answers reject put and copy with FileStoreFullError", async (t) => {
  // The bucket exists; every write is answered as MinIO does when its drives are under their free-space floor.
  const server = createServer((request, response) => {
    request.resume()
    if (request.method === 'HEAD') {
      response.writeHead(200).end()
      return
    }
    response.writeHead(507, { 'content-type': 'application/xml' })
    response.end(
      '<?xml version="1.0" encoding="UTF-8"?><Error><Code>XMinioStorageFull</Code>' +
        '<Message>Storage backend has reached its minimum free drive threshold.</Message></Error>',
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const { port } = server.address() as AddressInfo
  const store = await openFileStore({
    dataDir: t.testdirName,
    s3: {
      endPoint: '127.0.0.1',
      port,
      useSSL: false,
      accessKey: 'k',
      secretKey: 's',
      bucket: 'quire-full',
      region: 'us-east-1',
    },
  })
  await t.rejects(store.put('a', Readable.from([Buffer.from('hello')]), { size: 5, contentType: 'text/plain' }), {
    name: 'FileStoreFullError',
    statusCode: 507,
  })
  await t.rejects(store.copy('a', 'b'), { name: 'FileStoreFullError', statusCode: 507 })
})
