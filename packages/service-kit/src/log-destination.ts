import pino from 'pino'

/** Where pino writes; `flushSync` when lines may be pending. */
export interface LogDestination {
  write(line: string): void
  flushSync?(): void
}

let stdout: pino.DestinationStream & { flushSync(): void } | undefined

/**
 * stdout written asynchronously (pino's sonic-boom: lines logged while a write is in flight go out together),
 * instead of one synchronous write per line. One per process, flushed on exit so no line is lost.
 */
export function stdoutDestination(): LogDestination {
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: false })
    process.once('exit', () => destination.flushSync())
    stdout = destination
  }
  return stdout
}
