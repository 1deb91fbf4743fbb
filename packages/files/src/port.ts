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

/** A file as `list` names it, with when it was last written. */
export interface ListedFile {
  name: string
  modifiedOn: Date
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
  /** The name `list` gives the file stored under `key`. */
  nameOf(key: string): string
  /**
   * Up to `limit` files in name order, from after the name `after`: every stored file, and those left by writes
   * that never completed (their names are no key's). For sweeps: what no record refers to can be removed.
   */
  list(options: { after?: string; limit: number }): Promise<ListedFile[]>
  /** Removes a file by the name `list` gave it; a missing one is not an error. */
  removeListed(name: string): Promise<void>
  /** Resolves when the store answers and can be written to (`/ready`); rejects with the reason otherwise. */
  ping(): Promise<void>
  close(): Promise<void>
}
