import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { setImmediate as turn } from 'node:timers/promises'
import type { FileStore } from '@quire/files'
import type { Collection } from '@quire/records'
import type { AttachmentFileRecord } from './collections.js'
import { SPOOL_PREFIX } from './lib/spool.js'

export interface ReclaimOptions {
  files: FileStore
  /** The attachment records (`attachment_files`): a stored file is in use while one of them names it. */
  references: Collection<AttachmentFileRecord>
  /** Where uploads are spooled (`QUIRE_UPLOAD_DIR`, or the OS temp dir). */
  uploadDir: string
  /** Only files last written before this instant (epoch ms) go: an upload in progress is still writing its own. */
  before: number
  /** Files examined and records read per step; the event loop gets a turn after each. */
  step: number
  /** Stored files removed per pass at most. */
  limit: number
  /** True once the app is closing: the pass ends after the file in progress. */
  stopped(): boolean
}

export interface Reclaimed {
  /** Spool files of uploads that never completed. */
  spools: number
  /** Stored files no attachment record names, and the file store's temp files of writes that never completed. */
  files: number
}

const isMissing = (error: unknown): boolean => error instanceof Error && 'code' in error && error.code === 'ENOENT'

/** Removes the spool files in `dir` last written before `before`; other files there (the OS temp dir's) stay. */
async function reclaimSpools({ uploadDir, before, step, stopped }: ReclaimOptions): Promise<number> {
  let names: string[]
  try {
    names = (await readdir(uploadDir)).filter((name) => name.startsWith(SPOOL_PREFIX))
  } catch (error) {
    if (isMissing(error)) return 0
    throw error
  }
  let removed = 0
  for (let from = 0; from < names.length && !stopped(); from += step) {
    for (const name of names.slice(from, from + step)) {
      const path = join(uploadDir, name)
      const info = await stat(path).catch((error: unknown) => {
        if (isMissing(error)) return undefined
        throw error
      })
      if (info?.isFile() && info.mtimeMs < before) {
        await rm(path, { force: true })
        removed++
      }
    }
    await turn()
  }
  return removed
}

/**
 * The names (`FileStore.nameOf`) of the stored files attachment records name, one per record, held for the pass;
 * undefined when stopped midway (an incomplete set would make referenced files look orphaned).
 */
async function referencedNames({ files, references, step, stopped }: ReclaimOptions): Promise<Set<string> | undefined> {
  const names = new Set<string>()
  let after: string | undefined
  for (;;) {
    if (stopped()) return undefined
    const page = await references.find(
      {},
      { sort: { _id: 1 }, limit: step, projection: { file: 1 }, ...(after !== undefined && { after: { _id: after } }) },
    )
    for (const record of page) names.add(files.nameOf(record.file ?? record._id))
    after = page.at(-1)?._id
    if (page.length < step) return names
    await turn()
  }
}

/**
 * Removes up to `limit` stored files that no attachment record names and that were last written before `before`.
 * The records are read in pages, not at one instant: a copy made behind the read's position, whose source went
 * before the read reached it, would be missed. They are read again before anything goes: a file only becomes
 * referenced through a record that names it already, so both reads missing it takes that race twice over.
 */
async function reclaimStoredFiles(options: ReclaimOptions): Promise<number> {
  const { files, before, step, limit, stopped } = options
  const referenced = await referencedNames(options)
  if (referenced === undefined) return 0
  const candidates: string[] = []
  let after: string | undefined
  while (candidates.length < limit && !stopped()) {
    const page = await files.list({ after, limit: step })
    for (const { name, modifiedOn } of page) {
      if (modifiedOn.getTime() < before && !referenced.has(name)) candidates.push(name)
    }
    after = page.at(-1)?.name
    if (page.length < step) break
    await turn()
  }
  if (candidates.length === 0) return 0
  const stillReferenced = await referencedNames(options)
  if (stillReferenced === undefined) return 0
  let removed = 0
  for (const name of candidates.slice(0, limit)) {
    if (stopped()) break
    if (stillReferenced.has(name)) continue
    await files.removeListed(name)
    if (++removed % step === 0) await turn()
  }
  return removed
}

/**
 * One pass: spool files of uploads killed midway, and stored files no attachment record names (left by a
 * process killed between its steps, or by the file store's own unfinished writes), each only once older than the
 * grace the caller gives as `before`.
 */
export async function reclaim(options: ReclaimOptions): Promise<Reclaimed> {
  const spools = await reclaimSpools(options)
  const files = await reclaimStoredFiles(options)
  return { spools, files }
}
