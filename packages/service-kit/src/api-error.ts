import { ERROR_STATUS, USER_DESCRIPTIONS, type ErrorCode } from '@quire/contracts'

/**
 * The one error type handlers throw. The error handler turns it into the envelope with the status its code
 * maps to; `description` is technical, `userDescription` is for people (defaults to the contracts' plain-language
 * text of the code, `USER_DESCRIPTIONS`).
 */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly statusCode: number
  readonly userDescription: string

  constructor(
    readonly code: ErrorCode,
    description: string,
    userDescription?: string,
    statusCode?: number,
  ) {
    const status = statusCode ?? ERROR_STATUS[code]
    // A client error is an answer, not a fault: only server errors' stacks are logged, and capturing one was
    // a large share of the CPU of a 401 (which a client can send as fast as it likes).
    const stackLimit = Error.stackTraceLimit
    if (status < 500) Error.stackTraceLimit = 0
    try {
      super(description)
    } finally {
      Error.stackTraceLimit = stackLimit
    }
    this.statusCode = status
    this.userDescription = userDescription ?? USER_DESCRIPTIONS[code]
  }
}

/** Shorthand: `throw fail('document_not_found', 'No document 42')`. */
export const fail = (code: ErrorCode, description: string, userDescription?: string): ApiError =>
  new ApiError(code, description, userDescription)
