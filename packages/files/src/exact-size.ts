import { Transform, type TransformCallback } from 'node:stream'
import { FilesError } from './errors.js'

/** Passes bytes through, failing the stream when it carries more or fewer than `size` bytes. */
export function exactSize(size: number): Transform {
  let seen = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      seen += chunk.length
      if (seen > size) callback(new FilesError(`stream is longer than the declared ${size} bytes`))
      else callback(null, chunk)
    },
    flush(callback: TransformCallback) {
      callback(seen === size ? null : new FilesError(`stream ended after ${seen} of ${size} bytes`))
    },
  })
}
