import { ERROR_STATUS, type ErrorCode } from '@quire/contracts'

/**
 * The one error type handlers throw. The error handler turns it into the envelope with the status its code
 * maps to; `description` is technical, `userDescription` is for people (defaults to the description).
 */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly statusCode: number
  readonly userDescription: string

  constructor(readonly code: ErrorCode, description: string, userDescription?: string, statusCode?: number) {
    super(description)
    this.statusCode = statusCode ?? ERROR_STATUS[code]
    this.userDescription = userDescription ?? description
  }
}

/** Shorthand: `throw fail('document_not_found', 'No document 42')`. */
export const fail = (code: ErrorCode, description: string, userDescription?: string): ApiError =>
  new ApiError(code, description, userDescription)
