import type { Readable, Writable } from 'node:stream'

/** Where a command reads and writes: the process's own streams, or a test's. */
export interface Io {
  env: NodeJS.ProcessEnv
  stdin: Readable
  stdout: Writable
  stderr: Writable & { isTTY?: boolean }
}

/** A failure the user can fix: printed as `quire: <message>`, exit code 1, no stack. */
export class CliError extends Error {
  override name = 'CliError'
}

export const print = (io: Io, line: string): void => {
  io.stdout.write(`${line}\n`)
}
