import type { Readable } from 'node:stream'

/**
 * Reads and discards the rest of a request body nobody has started reading, up to `limit` bytes, so an answer
 * sent before the body was needed reaches a client still sending it (closing on it would be EPIPE there).
 * Resolves `false` when the body is larger, fails, or was already being read: the connection should then close
 * after the answer (lingering, by service-kit's `createServer`). The stream is never destroyed (that would end the
 * socket before the answer is written).
 */
export function drainBody(body: Readable, declaredLength: number | undefined, limit: number): Promise<boolean> {
  // Already being read (a failure part way through an upload): the client may still be sending.
  if (body.readableFlowing !== null || (declaredLength ?? 0) > limit) return Promise.resolve(false)
  if (body.readableEnded) return Promise.resolve(true)
  return new Promise((resolve) => {
    let read = 0
    const finish = (whole: boolean) => {
      body.off('data', onData).off('end', onEnd).off('error', onError)
      if (!whole) body.pause()
      resolve(whole)
    }
    const onData = (chunk: Buffer) => {
      read += chunk.length
      if (read > limit) finish(false)
    }
    const onEnd = () => finish(true)
    const onError = () => finish(false)
    body.on('data', onData).on('end', onEnd).on('error', onError)
  })
}
