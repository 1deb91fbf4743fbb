import cluster from 'node:cluster'
import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { countsPrimary, type App } from '@quire/service-kit'

/** Processes to run: as configured, or one per core up to two (what was measured to win, on two cores). */
export const processCountOf = (configured: number): number =>
  configured > 0 ? configured : Math.min(availableParallelism(), 2)

/**
 * The primary of a server of `count` processes on one port and one data dir (`node:cluster`). It serves no
 * request: it starts the first process alone, so that what an empty data dir needs once (its modes, the keys,
 * the first administrator) is done once, then the others; counts for them all the budgets and caps they share
 * (`countsPrimary`); starts again a process that dies; and on SIGTERM or SIGINT stops them all, each finishing
 * its requests, before it exits. A process that exits before it listens (a wrong setting, a port in use) stops
 * the server: starting it again would fail again.
 */
export async function supervise({
  count,
  log,
  ready,
}: {
  count: number
  log: App['log']
  ready: (port: number) => void
}) {
  // Run tokens signed by one process are checked by another (a script's token sent back to the server).
  const env = process.env.QUIRE_RUN_TOKEN_KEY ? {} : { QUIRE_RUN_TOKEN_KEY: randomBytes(32).toString('base64') }
  const counts = countsPrimary({ processes: () => Object.keys(cluster.workers ?? {}).length })
  cluster.on('message', (worker, message) => counts.receive(worker, message))
  let stopping = false
  let exitCode = 0

  // The page cache is the machine's: once the first process has read the store ahead, the others need not.
  const start = (first = false) =>
    new Promise<number>((resolve, reject) => {
      const worker = cluster.fork(first ? env : { ...env, QUIRE_PREWARM_MB: '0' })
      let listening = false
      worker.once('listening', (address) => {
        listening = true
        resolve(address.port)
      })
      worker.once('exit', (code, signal) => {
        counts.gone(worker)
        if (stopping) return
        if (!listening) {
          reject(new Error(`a process exited before it listened (code ${code}, signal ${signal})`))
          return
        }
        log.error({ exited: worker.process.pid, code, signal }, 'a process exited: starting another')
        start().catch(fail)
      })
    })

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'closing')
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined)
    let left = workers.length
    if (left === 0) process.exit(exitCode)
    for (const worker of workers) {
      worker.once('exit', (code) => {
        if (code !== 0) exitCode = 1
        if (--left === 0) process.exit(exitCode)
      })
      worker.process.kill('SIGTERM')
    }
  }
  const fail = (error: unknown) => {
    log.error({ err: error }, 'the server could not start')
    exitCode = 1
    stop('SIGTERM')
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)

  try {
    const port = await start(true)
    await Promise.all(Array.from({ length: count - 1 }, () => start()))
    ready(port)
  } catch (error) {
    fail(error)
  }
}
