import { MongoServerError } from 'mongodb'
import { DuplicateKeyError, ParallelArraysError, QueryTooLargeError } from '../errors.js'

const DUPLICATE_KEY = 11000
/** "cannot index parallel arrays [a] [b]" */
const PARALLEL_ARRAYS = 171

/** Runs a driver call, turning E11000 into `DuplicateKeyError` named after the index, 171 into `ParallelArraysError`. */
export async function mapDuplicate<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) {
      const index = /index: (\S+)/.exec(error.message)?.[1] ?? 'unknown'
      throw new DuplicateKeyError(index, error.keyValue)
    }
    if (error instanceof MongoServerError && error.code === PARALLEL_ARRAYS) {
      const fields = [...error.message.matchAll(/\[(\w[^\]]*)\]/g)].map((match) => match[1] ?? '')
      throw new ParallelArraysError('unknown', fields)
    }
    throw error
  }
}

/** A blocking sort past the server's memory limit (292 since 4.4; 16819 and 16820 before). */
const SORT_MEMORY = new Set([292, 16819, 16820])
const MAX_TIME_EXPIRED = 50

/**
 * Runs a driver query, turning the server's refusal of a sort past its memory limit, or of a query past its
 * `maxTimeMS`, into `QueryTooLargeError`.
 */
export async function mapQueryErrors<R>(call: () => Promise<R>): Promise<R> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof MongoServerError && typeof error.code === 'number' && SORT_MEMORY.has(error.code)) {
      throw new QueryTooLargeError('this sort needs more memory than the server allows: add an index on the sort', {
        cause: error,
      })
    }
    if (error instanceof MongoServerError && error.code === MAX_TIME_EXPIRED) {
      throw new QueryTooLargeError('this query runs longer than the server allows: add an index on its filter', {
        cause: error,
      })
    }
    throw error
  }
}

/** Runs a driver call, ignoring one server error code (e.g. "namespace not found" on a drop). */
export async function ignoreCode(code: number, call: () => Promise<unknown>): Promise<void> {
  try {
    await call()
  } catch (error) {
    if (!(error instanceof MongoServerError && error.code === code)) throw error
  }
}
