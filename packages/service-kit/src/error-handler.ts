import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { USER_DESCRIPTIONS, type ErrorBody, type ErrorCode } from '@quire/contracts'
import { ApiError } from './api-error.js'

/** The envelope; `userDescription` defaults to the contracts' plain-language text of the code. */
export const errorBody = (
  code: ErrorCode,
  description: string,
  userDescription = USER_DESCRIPTIONS[code],
): ErrorBody => ({
  status: 'error',
  error: code,
  description,
  userDescription,
  message: description,
})

/** Fastify's own client errors, by code, and what they mean on our wire. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_error',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation_error',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation_error',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
}

/** Statuses other plugins (rate limit, multipart, under-pressure) and stores' errors carry, and their codes. */
const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'validation_error',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'service_unavailable',
  507: 'insufficient_storage',
}

/** What a server error a store's own error maps to says: its message is for the log, not for the client. */
const SERVER_DESCRIPTIONS: Partial<Record<ErrorCode, string>> = {
  service_unavailable: 'The service is temporarily unavailable',
  insufficient_storage: 'The server has no room left to store this; nothing was saved',
}

function describe(error: FastifyError): { status: number; body: ErrorBody } {
  if (error instanceof ApiError) {
    return { status: error.statusCode, body: errorBody(error.code, error.message, error.userDescription) }
  }
  if (error.validation) {
    // e.g. "body/name must be string": Ajv's message prefixed with where the field lives; people read the catalogue.
    return { status: 400, body: errorBody('validation_error', error.message) }
  }
  const byCode = error.code ? FASTIFY_CODES[error.code] : undefined
  const status = error.statusCode ?? 500
  const code =
    byCode ?? (status >= 400 && status < 500 ? (STATUS_CODES[status] ?? 'validation_error') : STATUS_CODES[status])
  if (code && status < 500) return { status, body: errorBody(code, error.message) }
  const description = code && SERVER_DESCRIPTIONS[code]
  if (code && description) return { status, body: errorBody(code, description) }
  return { status: 500, body: errorBody('internal_error', 'An unexpected error occurred') }
}

function onError(this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { status, body } = describe(error)
  if (status >= 500) request.log.error({ err: error }, 'request failed')
  if (status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1')
  void reply.code(status).type('application/json; charset=utf-8').send(body)
}

/**
 * What Fastify answers before any route runs (a URL that is not valid UTF-8, a parameter over
 * `maxParamLength`): the same envelope, through the same description.
 */
export function onFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body } = describe(error)
  if (status >= 500) request.log.error({ err: error }, 'request failed')
  void reply.code(status).type('application/json; charset=utf-8').send(body)
}

function onNotFound(request: FastifyRequest, reply: FastifyReply) {
  void reply.code(404).send(errorBody('not_found', `Route ${request.method} ${request.url.split('?')[0]} not found`))
}

/** One error handler and one not-found handler, so every failure answers with the envelope. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler(onError)
  app.setNotFoundHandler(onNotFound)
}
