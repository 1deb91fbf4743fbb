import { Client, CopyDestinationOptions, CopySourceOptions, S3Error, type BucketItem } from 'minio'
import { checkKey } from './check-key.js'
import { FileNotFoundError, FileStoreFullError, FileStoreUnavailableError } from './errors.js'
import { exactSize } from './exact-size.js'
import { checkRange } from './check-range.js'
import type { FileInfo, FileStore, ListedFile } from './port.js'

export interface S3Options {
  endPoint: string
  port?: number
  useSSL?: boolean
  accessKey: string
  secretKey: string
  bucket: string
  region?: string
}

const MISSING_CODES = new Set(['NotFound', 'NoSuchKey'])
/** What creating a bucket answers when it already exists, e.g. because another replica created it just now. */
const BUCKET_EXISTS_CODES = new Set(['BucketAlreadyOwnedByYou', 'BucketAlreadyExists'])

function isMissing(error: unknown): boolean {
  return error instanceof S3Error && typeof error.code === 'string' && MISSING_CODES.has(error.code)
}

/** MinIO's answers to a write its drives or the bucket's quota have no room for. */
const FULL_CODES = new Set(['XMinioStorageFull', 'XMinioAdminBucketQuotaExceeded'])

const writeError = (error: unknown): unknown =>
  error instanceof S3Error && typeof error.code === 'string' && FULL_CODES.has(error.code)
    ? new FileStoreFullError('the bucket has no room for the file', { cause: error })
    : error

/**
 * Creates the bucket when missing. Replicas starting together race here: whoever loses is told the bucket
 * exists, which is success as long as we can reach it (`BucketAlreadyExists` alone may mean another account's).
 */
async function ensureBucket(client: Client, bucket: string, region: string | undefined): Promise<void> {
  if (await client.bucketExists(bucket)) return
  try {
    await client.makeBucket(bucket, region)
  } catch (error) {
    const exists = error instanceof S3Error && BUCKET_EXISTS_CODES.has(String(error.code))
    if (!exists || !(await client.bucketExists(bucket))) throw error
  }
}

/** The minio adapter: any S3-compatible store; the bucket is created at start when missing. */
export async function openMinioStore(options: S3Options): Promise<FileStore> {
  const { bucket } = options
  const client = new Client({
    endPoint: options.endPoint,
    port: options.port,
    useSSL: options.useSSL ?? false,
    accessKey: options.accessKey,
    secretKey: options.secretKey,
    region: options.region,
  })
  try {
    await ensureBucket(client, bucket, options.region)
  } catch (error) {
    throw new FileStoreUnavailableError(`cannot use bucket ${bucket}`, { cause: error })
  }

  const stat = async (key: string): Promise<FileInfo | null> => {
    try {
      const item = await client.statObject(bucket, checkKey(key))
      const contentType = item.metaData['content-type']
      return {
        size: item.size,
        etag: item.etag,
        contentType: typeof contentType === 'string' ? contentType : 'application/octet-stream',
      }
    } catch (error) {
      if (isMissing(error)) return null
      throw error
    }
  }

  const statOrThrow = async (key: string): Promise<FileInfo> => {
    const info = await stat(key)
    if (!info) throw new FileNotFoundError(key)
    return info
  }

  return {
    async put(key, source, { size, contentType }) {
      checkKey(key)
      // A short or long source fails the upload before the object is completed, so nothing is stored.
      const checked = source.pipe(exactSize(size))
      source.once('error', (error) => checked.destroy(error))
      try {
        await client.putObject(bucket, key, checked, size, { 'Content-Type': contentType })
      } catch (error) {
        throw writeError(error)
      }
      return statOrThrow(key)
    },

    async get(key, options = {}) {
      const info = await statOrThrow(key)
      const { range } = options
      if (range) checkRange(range, info.size)
      try {
        const stream = range
          ? await client.getPartialObject(bucket, key, range.start, range.end - range.start + 1)
          : await client.getObject(bucket, key)
        return { ...info, stream }
      } catch (error) {
        throw isMissing(error) ? new FileNotFoundError(key) : error
      }
    },

    stat,

    async exists(key) {
      return (await stat(key)) !== null
    },

    async copy(fromKey, toKey) {
      checkKey(toKey)
      await statOrThrow(fromKey)
      try {
        await client.copyObject(
          new CopySourceOptions({ Bucket: bucket, Object: fromKey }),
          new CopyDestinationOptions({ Bucket: bucket, Object: toKey }),
        )
      } catch (error) {
        throw writeError(error)
      }
      return statOrThrow(toKey)
    },

    async remove(key) {
      await client.removeObject(bucket, checkKey(key))
    },

    nameOf: checkKey,

    async list({ after = '', limit }) {
      const listed: ListedFile[] = []
      // Objects come a page at a time: leaving the loop destroys the stream, so no later page is asked for.
      for await (const item of client.listObjectsV2(bucket, '', true, after) as AsyncIterable<BucketItem>) {
        if (item.name !== undefined) listed.push({ name: item.name, modifiedOn: item.lastModified })
        if (listed.length >= limit) break
      }
      return listed
    },

    async removeListed(name) {
      await client.removeObject(bucket, checkKey(name))
    },

    async ping() {
      if (!(await client.bucketExists(bucket))) throw new FileStoreUnavailableError(`bucket ${bucket} is gone`)
    },

    async close() {},
  }
}
