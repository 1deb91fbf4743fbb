import { createHash, randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { isOutOfSpace } from '@quire/files'
import { fail } from '@quire/service-kit'

export interface Spooled {
  path: string
  size: number
  /** Hex sha256 of the bytes. */
  sha256: string
}

/** What every spool file's name starts with: the reclaim removes those an upload killed midway left. */
export const SPOOL_PREFIX = 'quire-upload-'

const cutShort = (fileName: string) =>
  fail(
    'validation_error',
    `body: the multipart body ended inside file "${fileName}"`,
    'The upload was incomplete; send it again',
  )

const isPrematureClose = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && error.code === 'ERR_STREAM_PREMATURE_CLOSE'

/**
 * Streams `source` into a new temp file under `dir`, counting and hashing on the way, so the file store
 * later gets a known size and no upload is ever held in memory. Rejects with 413 the moment more than
 * `limit` bytes have arrived, with 507 when the disk is full; on any failure the temp file is gone.
 */
export async function spool(source: Readable, dir: string, limit: number, fileName: string): Promise<Spooled> {
  // The parser destroys a part the body ended inside of, possibly before it is read here.
  if (source.destroyed) throw cutShort(fileName)
  const path = join(dir, `${SPOOL_PREFIX}${randomUUID()}`)
  const hash = createHash('sha256')
  let size = 0
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length
      if (size > limit) {
        callback(
          fail(
            'payload_too_large',
            `File "${fileName}" is larger than the limit of ${limit} bytes`,
            'The file is too large',
          ),
        )
        return
      }
      hash.update(chunk)
      callback(null, chunk)
    },
  })
  try {
    await pipeline(source, meter, createWriteStream(path, { flags: 'wx', mode: 0o600 }))
  } catch (error) {
    await rm(path, { force: true })
    if (isPrematureClose(error)) throw cutShort(fileName)
    if (isOutOfSpace(error)) {
      throw fail('insufficient_storage', `No room left in the upload folder for file "${fileName}"`)
    }
    throw error
  }
  return { path, size, sha256: hash.digest('hex') }
}
