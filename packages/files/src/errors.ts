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
