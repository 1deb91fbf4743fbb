import type { Socket } from 'node:net'

export interface LingerBounds {
  /** Bytes read and dropped, after which the client is cut off. */
  bytes: number
  /** Milliseconds, from the start of the close, after which the client is cut off. */
  ms: number
}

/**
 * Closes a connection the lingering way (RFC 9112 section 9.6; nginx's `lingering_close`): FIN after what was
 * written, then read and drop whatever the client still sends until it closes its side, or until `bounds`. Closing
 * at once while the client is still sending makes the kernel answer its data with a RST, and the client can then
 * lose the answer it had not read yet. Whoever was reading the socket (Node's HTTP parser) gets nothing more, so
 * nothing sent after the answer is parsed: a request pipelined behind a refused body never runs.
 */
export function lingeringClose(socket: Socket, bounds: LingerBounds): void {
  let read = 0
  const cutOff = () => socket.destroy()
  const timer = setTimeout(cutOff, bounds.ms)
  socket.once('close', () => clearTimeout(timer))
  // An error (a reset from the client) ends it as well: nothing is left to deliver.
  socket.on('error', cutOff)
  // The client closed its side: all it sent has been read, so closing now sends a FIN after the answer, no RST.
  // Prepended, so that Node's HTTP server, which would take the cut body for a client error, finds it closed.
  socket.prependOnceListener('end', cutOff)
  const takeOver = () => {
    socket.removeAllListeners('data')
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length
      if (read > bounds.bytes) cutOff()
    })
  }
  socket.end()
  // A reader that paused the socket (a request body nobody reads) stopped its reads; Node's HTTP parser, which
  // reads the socket's handle itself, starts them again on 'resume': only then is it safe to take the bytes over.
  if (socket.isPaused()) {
    socket.once('resume', takeOver)
    socket.resume()
  } else {
    takeOver()
  }
}

/**
 * Makes Node's HTTP server close `socket` the lingering way once a `Connection: close` answer is written. The
 * server ends such a connection with `socket.destroySoon()` (lib/_http_server.js, `resOnFinish`): end, then destroy
 * as soon as the answer is flushed, whatever the client is still sending.
 */
export function lingerAfterAnswer(socket: Socket, bounds: LingerBounds): void {
  socket.destroySoon = () => lingeringClose(socket, bounds)
}
