import type { FileStore } from '@quire/files'
import type { RecordStore } from '@quire/records'
import { DOCUMENTS_COLLECTIONS } from '../collections.js'
import { reclaim, type Reclaimed } from '../reclaim.js'
import type { Clock } from './deps.js'

/** `pass` runs a reclaim pass (see `../reclaim.ts`), or joins the one in progress. */
interface Reclaimer {
  pass(): Promise<Reclaimed>
  /** Once serving: a pass now, then hourly. */
  start(): void
  /** As closing starts: the pass in progress ends after its current file. */
  stop(): void
  /** Waits for the pass in progress: the stores must outlive it. */
  close(): Promise<void>
}

const HOUR = 60 * 60 * 1000
/** As the other sweeps of this service. */
const INTERVAL_MS = HOUR
const STEP = 100
const MAX_FILES_PER_PASS = 1000

export function createReclaimer(deps: {
  store: RecordStore
  files: FileStore
  uploadDir: string
  /** Files younger than this (ms) are never removed; well past the longest upload. */
  graceMs?: number
  clock: Clock
  log: {
    info(details: object, message: string): void
    error(details: object, message: string): void
  }
}): Reclaimer {
  const { store, files, uploadDir, graceMs = HOUR, clock, log } = deps
  const references = DOCUMENTS_COLLECTIONS.attachmentFiles.in(store)
  let closed = false
  let timer: NodeJS.Timeout | undefined
  let running: Promise<Reclaimed> | undefined

  const pass = (): Promise<Reclaimed> => {
    running ??= reclaim({
      files,
      references,
      uploadDir,
      before: clock() - graceMs,
      step: STEP,
      limit: MAX_FILES_PER_PASS,
      stopped: () => closed,
    }).finally(() => {
      running = undefined
    })
    return running
  }
  const inBackground = (): void => {
    pass().then(
      (reclaimed) => {
        if (reclaimed.spools + reclaimed.files > 0) log.info(reclaimed, 'leftover upload files reclaimed')
      },
      (err: unknown) => {
        if (!closed) log.error({ err }, 'leftover upload files could not be reclaimed')
      },
    )
  }

  return {
    pass,
    start() {
      timer = setInterval(inBackground, INTERVAL_MS).unref()
      inBackground()
    },
    stop() {
      closed = true
      clearInterval(timer)
    },
    async close() {
      await running?.catch(() => undefined)
    },
  }
}
