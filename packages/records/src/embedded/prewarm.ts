import { open } from 'node:fs/promises'

/** One read's size: large enough for the kernel's sequential readahead, small enough to stop soon when closing. */
const CHUNK = 4 * 1024 * 1024

/**
 * Reads the first `limit` bytes of `file` once, front to back, and drops them: the kernel keeps them in its page
 * cache, which lmdb's map shares. A freshly started server otherwise faults its map in one 4 KiB page at a time
 * (the map reads no ahead, see `Engine`), each fault a disk read that blocks the event loop for every caller; read
 * ahead here, on libuv's threads, the first requests find the pages in memory, as pg_prewarm does for PostgreSQL.
 * The pages are the kernel's to evict, not the process's memory. Stops early when `signal` aborts; a read error
 * ends it too. Resolves with the bytes read.
 */
export async function prewarm(file: string, limit: number, signal: AbortSignal): Promise<number> {
  let read = 0
  try {
    const handle = await open(file, 'r')
    try {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, limit))
      while (read < limit && !signal.aborted) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, limit - read), read)
        if (bytesRead === 0) break
        read += bytesRead
      }
    } finally {
      await handle.close()
    }
  } catch {
    // Warming is a hint: the store's own reads of the same file report what went wrong.
  }
  return read
}
