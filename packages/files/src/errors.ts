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

export class FileStoreUnavailableError extends FilesError {
  override name = 'FileStoreUnavailableError'
}
