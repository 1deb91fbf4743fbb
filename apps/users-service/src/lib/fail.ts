import { USER_DESCRIPTIONS, type ErrorCode } from '@quire/contracts'
import { ApiError } from '@quire/service-kit'

/**
 * `fail` of @quire/service-kit, with the contracts' plain-language `userDescription` of the code when none more
 * precise is given (the kit's own falls back to the technical description).
 */
export const fail = (code: ErrorCode, description: string, userDescription = USER_DESCRIPTIONS[code]): ApiError =>
  new ApiError(code, description, userDescription)

/**
 * Fastify's validation message as `description` ("body/code must match pattern ..."), as its default formatter
 * writes it; the schema's paths and patterns stay out of `userDescription`.
 */
export function schemaError(errors: readonly { instancePath?: string; message?: string }[], dataVar: string): ApiError {
  const description = errors.map((error) => `${dataVar}${error.instancePath ?? ''} ${error.message ?? ''}`).join(', ')
  return fail('validation_error', description)
}

/** 429 `rate_limited`; app.ts's `onError` hook sends `retryAfter` as the `Retry-After` header. */
export class RetryLater extends ApiError {
  constructor(
    readonly retryAfter: number,
    what: string,
  ) {
    super('rate_limited', `Too many ${what}; retry in ${retryAfter} s`, USER_DESCRIPTIONS.rate_limited)
  }
}
