/** Where pino writes: anything with `write(line)`. */
export interface LogStream {
  write(line: string): void
  /** Writes what is pending now (at exit too, so no line is lost on a clean stop). */
  flush(): void
  /** Flushes; later lines are written at once. */
  close(): void
}

/** Past this many pending characters a batch is written at once, so a burst cannot grow memory. */
const MAX_PENDING = 64 * 1024

/** Streams with lines pending, flushed by one `exit` listener (however many servers a process creates). */
const unflushed = new Set<() => void>()
let flushAtExit = false

/**
 * Log lines batched per event-loop turn: one write to `out` for every line logged during the turn, instead of
 * a synchronous write per line (pino's default). Lines keep their order; pending ones are written at exit.
 */
export function batchedLogStream(out: { write(chunk: string): unknown } = process.stdout): LogStream {
  let pending = ''
  let scheduled = false
  let closed = false
  const flush = () => {
    scheduled = false
    unflushed.delete(flush)
    if (pending === '') return
    const chunk = pending
    pending = ''
    out.write(chunk)
  }
  if (!flushAtExit) {
    flushAtExit = true
    process.once('exit', () => unflushed.forEach((pendingFlush) => pendingFlush()))
  }
  return {
    write(line) {
      pending += line
      if (closed || pending.length >= MAX_PENDING) flush()
      else if (!scheduled) {
        scheduled = true
        unflushed.add(flush)
        setImmediate(flush)
      }
    },
    flush,
    close() {
      closed = true
      flush()
    },
  }
}
