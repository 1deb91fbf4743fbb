import type { Readable } from 'node:stream'

/**
 * The files port. Keys are opaque strings made of `[A-Za-z0-9._-]` segments joined by `/`; adapters must
 * refuse anything else (`InvalidKeyError`), so a key can never escape its store.
 */
export interface FileInfo {
  size: number
  contentType: string
  etag: string
}

export interface ByteRange {
  /** First byte, inclusive. */
  start: number
  /** Last byte, inclusive. */
  end: number
}

export interface FileStore {
  /** Stores exactly `size` bytes from `source`; a short or long stream rejects and leaves nothing behind. */
  put(key: string, source: Readable, options: { size: number; contentType: string }): Promise<FileInfo>
  /** Rejects with `FileNotFoundError` when missing. */
  get(key: string, options?: { range?: ByteRange }): Promise<FileInfo & { stream: Readable }>
  stat(key: string): Promise<FileInfo | null>
  exists(key: string): Promise<boolean>
  /** Server-side copy: no bytes pass through the caller. */
  copy(fromKey: string, toKey: string): Promise<FileInfo>
  /** Removing a missing key is not an error. */
  remove(key: string): Promise<void>
  /** Resolves when the store answers and can be written to (`/ready`); rejects with the reason otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}
