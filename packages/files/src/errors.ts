export class FilesError extends Error {
  override name = 'FilesError'
}

export class FileNotFoundError extends FilesError {
  override name = 'FileNotFoundError'
  constructor(readonly key: string) {
    super(`no file stored under ${key}`)
  }
}

export class InvalidKeyError extends FilesError {
  override name = 'InvalidKeyError'
}

/** The file store does not answer; `statusCode` lets an HTTP error handler answer 503 without knowing this package. */
export class FileStoreUnavailableError extends FilesError {
  override name = 'FileStoreUnavailableError'
  readonly statusCode = 503
}

/** The store has no room for the file (a full disk or quota); nothing of it was kept. `statusCode`: 507. */
export class FileStoreFullError extends FilesError {
  override name = 'FileStoreFullError'
  readonly statusCode = 507
}

/** Whether a file system call failed for lack of room: the disk (ENOSPC) or the user's quota (EDQUOT) is full. */
export function isOutOfSpace(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error.code === 'ENOSPC' || error.code === 'EDQUOT')
}
