/** Typed failures of the records port; services map them to API errors. */
export class RecordsError extends Error {
  override name = 'RecordsError'
}

export class DuplicateKeyError extends RecordsError {
  override name = 'DuplicateKeyError'
  constructor(
    readonly index: string,
    readonly key: unknown,
  ) {
    super(`duplicate key for index ${index}`)
  }
}

/**
 * A record holding arrays in more than one field of one index, as MongoDB refuses it ("cannot index parallel
 * arrays"): its entries would be the product of the arrays' lengths.
 */
export class ParallelArraysError extends RecordsError {
  override name = 'ParallelArraysError'
  constructor(
    readonly index: string,
    readonly fields: readonly string[],
  ) {
    super(`index ${index} cannot hold a record with arrays in both ${fields.join(' and ')}`)
  }
}

export class ConflictError extends RecordsError {
  override name = 'ConflictError'
  constructor() {
    super('the record changed since it was read')
  }
}

/** A client filter, sort or projection that is malformed or uses a forbidden operator. */
export class InvalidQueryError extends RecordsError {
  override name = 'InvalidQueryError'
}

/**
 * A query that would hold more records in memory than the query budget allows (a sort no index serves, a large
 * `skip`, a `count` no index answers over a large collection); the message names the index that would answer it.
 */
export class QueryTooLargeError extends RecordsError {
  override name = 'QueryTooLargeError'
}

/** The store does not answer; `statusCode` lets an HTTP error handler answer 503 without knowing this package. */
export class StoreUnavailableError extends RecordsError {
  override name = 'StoreUnavailableError'
  readonly statusCode = 503
}

/**
 * The store cannot grow: its disk or quota is full (ENOSPC, EDQUOT) or lmdb's map is (MDB_MAP_FULL). The write
 * left nothing behind; `statusCode` lets an HTTP error handler answer 507 without knowing this package.
 */
export class StoreFullError extends RecordsError {
  override name = 'StoreFullError'
  readonly statusCode = 507
}

/**
 * An environment has as much costly store work waiting for its turn as its work account allows (see
 * `WorkAccount.queueLimit`); `statusCode` lets an HTTP error handler answer 429 (with `Retry-After`).
 */
export class WorkQueueFullError extends RecordsError {
  override name = 'WorkQueueFullError'
  readonly statusCode = 429
}
