import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { constants, createReadStream } from 'node:fs'
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { promisify } from 'node:util'
import {
  admin as documentsAdmin,
  RECORDS_COMPRESSION_DICTIONARY,
  RECORDS_UNCARRIED_FIELDS,
} from '@quire/documents-service'
import { openFileStore } from '@quire/files'
import { embeddedStoreUsers, openEmbeddedStore, tightenDataDir } from '@quire/records'
import type { CliConfig } from '../config.js'
import { readConfig } from '../context.js'
import { CliError, print, type Io } from '../io.js'
import { progress } from '../progress.js'

/**
 * What a backup directory holds besides its data: checked by restore, so it never reads any other folder. Format 2
 * records the sha256 of every file (by its path in the backup); format 1 backups have none.
 */
interface Manifest {
  format: 1 | 2
  createdOn: string
  files: number
  checksums?: Record<string, string>
}

const MANIFEST = 'manifest.json'
/** Snapshots taken before giving up, when files the snapshot refers to keep being removed meanwhile. */
const ATTEMPTS = 3
/** The parts of a data dir a backup holds, in the order restore puts them in place. */
const PARTS = ['records', 'files', 'keys'] as const
// Under tap the sources run as TypeScript; built, the walker sits next to this file's folder as walk-store.js.
const WALK_STORE = new URL(import.meta.url.endsWith('.ts') ? '../walk-store.ts' : '../walk-store.js', import.meta.url)

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256')
  await pipeline(createReadStream(path), hash)
  return hash.digest('hex')
}
/** A backup holds what the data dir does (password hashes, keys, every tenant's documents): its owner's alone. */
const DIR_MODE = 0o700
const FILE_MODE = 0o600

/** MongoDB and S3 have their own tools, which do this better than a copy through this process could. */
function refuseExternal(config: CliConfig, command: string): void {
  const advice: string[] = []
  if (config.QUIRE_MONGO_URL) {
    advice.push(
      'records are in MongoDB: use its tools, e.g. `mongodump --uri="$QUIRE_MONGO_URL" --db=' +
        `${config.QUIRE_MONGO_DB} --archive=quire.archive\` and \`mongorestore --uri=... --archive=quire.archive\``,
    )
  }
  if (config.QUIRE_S3_ENDPOINT) {
    advice.push(
      `files are in the S3 bucket "${config.QUIRE_S3_BUCKET}": use \`mc mirror <alias>/${config.QUIRE_S3_BUCKET} ` +
        '<dir>/files` (and back with `mc mirror <dir>/files <alias>/<bucket>`)',
    )
  }
  if (advice.length > 0) {
    throw new CliError(`${command} covers the embedded store and local files only;\n  ${advice.join('\n  ')}`)
  }
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

/** Every file under `root` (relative paths), but the top-level `tmp` (uploads in progress, never referenced). */
async function listFiles(root: string): Promise<string[]> {
  if (!(await exists(root))) return []
  const entries = await readdir(root, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .filter((path) => !path.startsWith(`tmp/`))
}

/**
 * Copies the files of `from` missing in `to`, owner-only (a copy has its source's mode, which files stored
 * before modes were set have looser). Stored files never change (a new upload gets a new key), so a file
 * already there is the same; one removed meanwhile is skipped (the caller checks what is still needed).
 */
async function copyFiles(io: Io, from: string, to: string, label: string): Promise<number> {
  const paths = await listFiles(from)
  const bar = progress(io, label, paths.length)
  let copied = 0
  try {
    for (const path of paths) {
      bar.tick()
      const target = join(to, path)
      if (await exists(target)) continue
      await mkdir(join(target, '..'), { recursive: true, mode: DIR_MODE })
      try {
        await copyFile(join(from, path), target, constants.COPYFILE_FICLONE)
        await chmod(target, FILE_MODE)
        copied++
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
    }
  } finally {
    bar.stop()
  }
  return copied
}

/**
 * The attachments that documents of the snapshot in `dir` hold but whose stored file is not in `dir`: files removed
 * after the snapshot was taken (their document changed or went after it).
 */
async function lostFiles(dir: string): Promise<string[]> {
  const store = openEmbeddedStore(dir)
  const files = await openFileStore({ dataDir: dir })
  try {
    return await documentsAdmin(store, files).lostAttachments()
  } finally {
    await files.close()
    await store.close()
  }
}

/** The store, then the files it refers to, taken again while a file it refers to went missing meanwhile. */
async function copyConsistently(io: Io, dataDir: string, target: string): Promise<void> {
  const store = openEmbeddedStore(dataDir, {
    compressionDictionary: RECORDS_COMPRESSION_DICTIONARY,
    uncarriedFields: RECORDS_UNCARRIED_FIELDS,
  })
  let lost: string[] = []
  try {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      await rm(join(target, 'records'), { recursive: true, force: true })
      await store.backup(target)
      await copyFiles(io, join(dataDir, 'files'), join(target, 'files'), 'files')
      lost = await lostFiles(target)
      if (lost.length === 0) break
    }
  } finally {
    await store.close()
  }
  if (lost.length > 0) {
    throw new CliError(`files kept being removed while the backup ran (${lost.join(', ')}); run it again`)
  }
  // The key pair, when generated into the data dir: tokens issued before the backup stay valid after a restore.
  await copyFiles(io, join(dataDir, 'keys'), join(target, 'keys'), 'keys')
}

/**
 * A consistent copy while the server runs: the store is copied in one read transaction, then the files. A file
 * is stored before any document refers to it and removed only after none does, so every file the snapshot's
 * documents refer to existed when it was taken; the copy misses one only if it was removed since. That is
 * checked, and the snapshot taken again (its documents no longer refer to it).
 */
export async function backup(io: Io, dir: string): Promise<void> {
  const config = readConfig(io)
  refuseExternal(config, 'backup')
  const dataDir = resolve(config.QUIRE_DATA_DIR)
  const target = resolve(dir)
  if (!(await exists(join(dataDir, 'records')))) throw new CliError(`there is no embedded store in ${dataDir}`)
  if ((await exists(target)) && (await readdir(target)).length > 0) throw new CliError(`${target} is not empty`)
  await mkdir(target, { recursive: true, mode: DIR_MODE })
  await chmod(target, DIR_MODE)

  try {
    await copyConsistently(io, dataDir, target)
  } catch (err) {
    // Nothing half-made is left to be taken for a backup: the directory is as empty as it was.
    for (const entry of await readdir(target).catch(() => [])) {
      await rm(join(target, entry), { recursive: true, force: true })
    }
    throw err
  }
  const checksums: Record<string, string> = {}
  for (const path of await listFiles(target)) checksums[path] = await sha256(join(target, path))
  const manifest: Manifest = {
    format: 2,
    createdOn: new Date().toISOString(),
    files: (await listFiles(join(target, 'files'))).length,
    checksums,
  }
  await writeFile(join(target, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: FILE_MODE })
  print(io, `backed up ${dataDir} to ${target}: the store and ${manifest.files} files`)
}

/** Throws, naming the first file of the backup that is missing or whose bytes are not those it was made with. */
async function verifyChecksums(source: string, manifest: Manifest): Promise<void> {
  const damaged = (path: string, why: string) =>
    new CliError(`the backup is damaged: ${path} ${why}; nothing was changed`)
  if (!(await exists(join(source, 'records', 'data.mdb')))) throw damaged('records/data.mdb', 'is missing')
  for (const [path, expected] of Object.entries(manifest.checksums ?? {})) {
    if (path.split('/').includes('..')) throw damaged(path, 'is outside the backup')
    let actual: string
    try {
      actual = await sha256(join(source, path))
    } catch {
      throw damaged(path, 'is missing')
    }
    if (actual !== expected) throw damaged(path, 'does not match its checksum')
  }
}

/** Walks the store put together in `staging` in a process of its own (see walk-store.ts); throws when it fails. */
async function verifyStore(staging: string): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [...process.execArgv, WALK_STORE.pathname, staging])
  } catch (err) {
    const { stderr, signal } = err as { stderr?: string; signal?: string }
    const why = signal ? `reading it ended with ${signal}` : (stderr?.trim().split('\n')[0] ?? 'it cannot be read')
    throw new CliError(`the backup is damaged: records/data.mdb is not a readable store (${why}); nothing was changed`)
  }
}

/** Refuses while a process has the store of `dataDir` open: replacing it under a server loses its writes. */
async function refuseInUse(dataDir: string): Promise<void> {
  const users = await embeddedStoreUsers(dataDir)
  if (users.length > 0) {
    throw new CliError(`${dataDir} is in use by process ${users.join(', ')}: stop every Quire process using it first`)
  }
}

/**
 * Into a data dir no process uses. The backup is verified first (every checksum), then put together beside the
 * data in `<dataDir>/.restore-<id>` and its store walked; only then are the parts swapped in by renames, the old
 * ones kept in `<dataDir>/.replaced-<id>` until the last rename is done. Any failure before the swap leaves the
 * data dir as it was.
 */
export async function restore(io: Io, dir: string, options: { force?: boolean }): Promise<void> {
  const config = readConfig(io)
  refuseExternal(config, 'restore')
  const source = resolve(dir)
  const dataDir = resolve(config.QUIRE_DATA_DIR)
  let manifest: Manifest
  try {
    manifest = JSON.parse(await readFile(join(source, MANIFEST), 'utf8')) as Manifest
  } catch {
    throw new CliError(`${source} is not a backup made by \`quire backup\` (no ${MANIFEST})`)
  }
  if (manifest.format !== 1 && manifest.format !== 2) {
    throw new CliError(`${source}: unknown backup format ${String(manifest.format)}`)
  }
  if (manifest.format === 1) io.stderr.write('quire: this backup records no checksums; only its store is checked\n')
  await verifyChecksums(source, manifest)
  const replacing = await exists(join(dataDir, 'records'))
  if (replacing) {
    if (!options.force) {
      throw new CliError(
        `${dataDir} already holds a store: stop every Quire process using it, then pass --force to replace it`,
      )
    }
    await refuseInUse(dataDir)
  }

  const id = randomBytes(6).toString('hex')
  const staging = join(dataDir, `.restore-${id}`)
  const replaced = join(dataDir, `.replaced-${id}`)
  await mkdir(join(staging, 'records'), { recursive: true, mode: DIR_MODE })
  let files: number
  try {
    await copyFile(join(source, 'records', 'data.mdb'), join(staging, 'records', 'data.mdb'))
    await chmod(join(staging, 'records', 'data.mdb'), FILE_MODE)
    files = await copyFiles(io, join(source, 'files'), join(staging, 'files'), 'files')
    await copyFiles(io, join(source, 'keys'), join(staging, 'keys'), 'keys')
    await verifyStore(staging)
    // A server may have started while the backup was copied.
    if (replacing) await refuseInUse(dataDir)
  } catch (err) {
    await rm(staging, { recursive: true, force: true })
    throw err
  }

  await mkdir(replaced, { mode: DIR_MODE })
  const moved: string[] = []
  try {
    for (const part of PARTS) {
      if (await exists(join(dataDir, part))) {
        await rename(join(dataDir, part), join(replaced, part))
        moved.push(part)
      }
    }
    for (const part of PARTS) {
      if (await exists(join(staging, part))) await rename(join(staging, part), join(dataDir, part))
    }
  } catch (err) {
    // Put back what was moved aside: the data dir is as it was.
    for (const part of PARTS) {
      if (await exists(join(staging, part))) continue
      await rm(join(dataDir, part), { recursive: true, force: true })
    }
    for (const part of moved) await rename(join(replaced, part), join(dataDir, part))
    await rm(staging, { recursive: true, force: true })
    await rm(replaced, { recursive: true, force: true })
    throw new CliError(`the restore could not put the backup in place (${(err as Error).message}); nothing was changed`)
  }
  await rm(replaced, { recursive: true, force: true })
  await rm(staging, { recursive: true, force: true })
  tightenDataDir(dataDir)
  print(io, `restored the backup of ${manifest.createdOn} into ${dataDir}: the store and ${files} files`)
}
