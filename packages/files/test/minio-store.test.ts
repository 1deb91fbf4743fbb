import t from 'tap'
import S3rver from 's3rver'
import { openFileStore } from '../src/index.js'
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
