import pino from 'pino'
import pretty from 'pino-pretty'

/** Where pino writes; `flushSync` when lines may be pending. */
export interface LogDestination {
  write(line: string): void
  flushSync?(): void
}

let stdout: (pino.DestinationStream & { flushSync(): void }) | undefined

/**
 * stdout written asynchronously (pino's sonic-boom: lines logged while a write is in flight go out together),
 * instead of one synchronous write per line. One per process, flushed on exit so no line is lost.
 */
export function stdoutDestination(): LogDestination {
  if (!stdout) {
    // sonic-boom measures the pending chunk's UTF-8 length on every line, flattening it: smaller chunks cost less
    // than half as much per line under load, and still carry many lines per write.
    const destination = pino.destination({ dest: 1, sync: false, maxWrite: 4096 })
    process.once('exit', () => destination.flushSync())
    stdout = destination
  }
  return stdout
}

/**
 * Lines for people (time, level, message, then the fields), written synchronously to `output` (stdout by
 * default, in colour there): for a terminal, where nobody parses them and throughput does not matter.
 */
export function terminalDestination(output: number | NodeJS.WritableStream = 1): LogDestination {
  return pretty({
    destination: output,
    colorize: output === 1,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  })
}

/** Readable lines when stdout is a terminal, JSON lines otherwise (a file, a pipe, a log collector). */
export const defaultLogDestination = (isTerminal = process.stdout.isTTY): LogDestination =>
  isTerminal ? terminalDestination() : stdoutDestination()
