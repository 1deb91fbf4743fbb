import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'

export interface LingerBounds {
  /** Bytes read and dropped, after which the client is cut off. */
  bytes: number
  /** Milliseconds, from the start of the close, after which the client is cut off. */
  ms: number
}

/**
 * How long a connection lingers after an answer sent before its request's end. A client only needs to read the
 * answer (one round trip) to stop sending; 2 s covers that on slow links (Apache lingers 2 s) and 16 MiB is what a
 * client sending at 64 Mbit/s puts on the wire in that time. Past either, it is not reading, and a hostile client
 * holds the socket no longer. A well-behaved client on a busy machine stops well within both bounds.
 */
export const ANSWER_LINGER: LingerBounds = { bytes: 16 * 1024 * 1024, ms: 2000 }

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
    // A 'data' listener also detaches Node's HTTP parser from the socket (lib/_http_server.js, `unconsume`).
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
 * Makes Node's HTTP server close `request`'s connection the lingering way if it ends it after this answer while
 * the request's body is still arriving. The server ends a `Connection: close` answer's connection with
 * `socket.destroySoon()` (lib/_http_server.js, `resOnFinish`: end, then destroy as soon as the answer is flushed,
 * whatever the client is still sending); that call is replaced, once. On a connection kept alive instead (Node
 * reads and drops the body's rest), a later close finds the request complete and is Node's own. `createServer`
 * calls it for every answer sent before its request's end; call it yourself only for one it does not see (a
 * hijacked reply).
 */
export function lingerAfterAnswer(request: IncomingMessage): void {
  // Destroyed (the gateway proxy's failed pipe to an upstream destroys the body it was reading): Node has let go of
  // it, `socket` included (null), so there is no close to take over.
  if (request.destroyed) return
  const socket = request.socket
  socket.destroySoon = function lingerWhileSending() {
    Reflect.deleteProperty(socket, 'destroySoon')
    if (request.complete) socket.destroySoon()
    else lingeringClose(socket, ANSWER_LINGER)
  }
}
