import { ApiError } from '@quire/service-kit'

/** 429 `rate_limited`; app.ts's `onError` hook sends `retryAfter` as the `Retry-After` header. */
export class RetryLater extends ApiError {
  constructor(
    readonly retryAfter: number,
    what: string,
  ) {
    super('rate_limited', `Too many ${what}; retry in ${retryAfter} s`)
  }
}
