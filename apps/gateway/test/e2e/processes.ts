import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const APPS = fileURLToPath(new URL('../../../', import.meta.url))

export interface Running {
  url: string
  port: number
  child: ChildProcess
  /** SIGTERM, resolved once the process has exited. */
  stop(): Promise<void>
  /** Resolves with the first later log line that matches. */
  waitForLog(pattern: RegExp): Promise<string>
  /** Every log line so far, those before it listened included. */
  readonly logged: readonly string[]
}

const started = new Set<ChildProcess>()
// A test process that dies (timeout, crash) must not leave servers behind.
const killAll = () => started.forEach((child) => child.kill('SIGKILL'))
process.once('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll()
    process.exit(1)
  })
}

/**
 * Starts `apps/<app>/dist/server.js` as its own process on a loopback port (0 = any) and resolves with its URL
 * once it logs that it listens: no polling, no sleeps. Rejects if it exits first.
 */
export function startApp(app: string, env: Record<string, string>, port = 0): Promise<Running> {
  const child = spawn(process.execPath, [`${APPS}${app}/dist/server.js`], {
    env: {
      PATH: process.env.PATH ?? '',
      QUIRE_HOST: '127.0.0.1',
      QUIRE_PORT: String(port),
      QUIRE_LOG_LEVEL: 'info',
      // One process unless a test asks for more (processes.test.ts): they start faster.
      QUIRE_PROCESSES: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  started.add(child)
  child.once('exit', () => started.delete(child))
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const lines = createInterface({ input: child.stdout! })
  const logged: string[] = []
  lines.on('line', (line) => logged.push(line))
  const waitForLog = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const onLine = (line: string) => {
        if (!pattern.test(line)) return
        lines.off('line', onLine)
        resolve(line)
      }
      lines.on('line', onLine)
    })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${app} exited with ${code} before listening: ${stderr}`)))
    lines.on('line', (line) => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:(\d+))/.exec(line)
      if (!match?.[1] || !match[2]) return
      resolve({
        url: match[1],
        port: Number(match[2]),
        child,
        waitForLog,
        logged,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM')
          await exited
        },
      })
    })
  })
}
