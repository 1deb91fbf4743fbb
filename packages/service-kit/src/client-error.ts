import { randomUUID } from 'node:crypto'
import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ERROR_STATUS, type ErrorCode } from '@quire/contracts'
import type { ConnectionError, FastifyInstance } from 'fastify'
import { errorBody } from './error-handler.js'
import { ANSWER_LINGER, lingeringClose } from './lingering-close.js'

/** What a connection error reported by Node's HTTP server means on our wire; undefined: nothing to answer. */
function describe(error: ConnectionError & { reason?: unknown }): { code: ErrorCode; description: string } | undefined {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', description: 'The request was not received in time' }
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'request_header_fields_too_large',
        description: `The request line and headers exceed ${maxHeaderSize} bytes`,
      }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { code: 'payload_too_large', description: 'The chunk extensions of the body are too large' }
  }
  // The parser's other refusals (`HPE_INVALID_METHOD`, ...); anything else is the socket's own (a reset).
  if (!error.code.startsWith('HPE_')) return undefined
  const reason = typeof error.reason === 'string' ? `: ${error.reason}` : ''
  return { code: 'validation_error', description: `The request is not valid HTTP (${error.code})${reason}` }
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP server reports before a request reaches Fastify (a request line
 * or headers over `maxHeaderSize`, bytes that are not HTTP, a request not received within the timeouts) is
 * answered with the envelope and `Connection: close`, then the connection closes lingering, so a client still
 * sending reads the answer instead of a reset.
 */
export function answerClientError(this: FastifyInstance, error: ConnectionError, socket: Socket): void {
  const answer = describe(error)
  // Node's own handler writes only when no answer to this connection has started (lib/_http_server.js,
  // `socketOnError`): anything written after a started one would corrupt it.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage
  if (answer === undefined || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const status = ERROR_STATUS[answer.code]
  const requestId = randomUUID()
  const body = JSON.stringify(errorBody(answer.code, answer.description))
  this.log.info({ reqId: requestId, status, code: error.code }, 'client error')
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  )
  lingeringClose(socket, ANSWER_LINGER)
}
