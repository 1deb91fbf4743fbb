import { createHash, randomUUID } from 'node:crypto'
import {
  access,
  chmod,
  constants,
  copyFile,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  type FileHandle,
} from 'node:fs/promises'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { checkKey } from './check-key.js'
import { checkRange } from './check-range.js'
import { FileNotFoundError, FileStoreFullError, InvalidKeyError, isOutOfSpace } from './errors.js'
import { exactSize } from './exact-size.js'
import type { FileInfo, FileStore, ListedFile } from './port.js'

/** Trailer appended after the bytes: its JSON, then its length as 4 bytes, so ranges read from offset 0. */
const LENGTH_BYTES = 4
/** Owner-only: attachments are tenants' documents. */
const DIR_MODE = 0o700
const FILE_MODE = 0o600

/** What `list` names: a stored file (`<2 hex>/<64 hex>`, its folder and file) or a temp one (`tmp/<uuid>`). */
const LISTED_NAME = /^(?:[0-9a-f]{2}\/[0-9a-f]{64}|tmp\/[0-9a-f-]{36})$/
const LISTED_FOLDER = /^(?:[0-9a-f]{2}|tmp)$/

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT'
}

/** A write the disk had no room for, as the port says it; other errors as they are. */
const writeError = (error: unknown): unknown =>
  isOutOfSpace(error) ? new FileStoreFullError('the disk holding the files is full', { cause: error }) : error

async function readInfo(handle: FileHandle): Promise<FileInfo> {
  const { size: total } = await handle.stat()
  const length = Buffer.alloc(LENGTH_BYTES)
  await handle.read(length, 0, LENGTH_BYTES, total - LENGTH_BYTES)
  const trailer = Buffer.alloc(length.readUInt32BE())
  await handle.read(trailer, 0, trailer.length, total - LENGTH_BYTES - trailer.length)
  return JSON.parse(trailer.toString('utf8')) as FileInfo
}

/**
 * The local adapter: one file per key under `<dataDir>/files`, named by the key's sha256 (so no key maps
 * outside the directory and `a` and `a/b` can coexist), holding the bytes then a metadata trailer. Writes go
 * to a temp file, are fsynced, then renamed into place: a reader sees the old file or the new one, never a
 * torn one. The etag is the sha256 of the content. Folders are 0700 and files 0600; the two top folders of an
 * install from before are tightened at open (what they hold is then out of others' reach).
 */
export async function openLocalStore(dataDir: string): Promise<FileStore> {
  const root = join(dataDir, 'files')
  const tmp = join(root, 'tmp')
  await mkdir(tmp, { recursive: true, mode: DIR_MODE })
  for (const dir of [root, tmp]) if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, DIR_MODE)

  const nameOf = (key: string): string => {
    const hash = createHash('sha256').update(checkKey(key)).digest('hex')
    return `${hash.slice(0, 2)}/${hash}`
  }
  const pathOf = (key: string): string => join(root, nameOf(key))

  /** The files of one folder after `after`, in order; a folder removed meanwhile has none. */
  const listFolder = async (folder: string, after: string, limit: number): Promise<ListedFile[]> => {
    let names: string[]
    try {
      names = await readdir(join(root, folder))
    } catch (error) {
      if (isMissing(error)) return []
      throw error
    }
    const listed: ListedFile[] = []
    for (const file of names.sort()) {
      const name = `${folder}/${file}`
      if (name <= after || !LISTED_NAME.test(name)) continue
      try {
        listed.push({ name, modifiedOn: (await stat(join(root, name))).mtime })
      } catch (error) {
        if (!isMissing(error)) throw error
      }
      if (listed.length === limit) break
    }
    return listed
  }

  const place = async (temp: string, key: string): Promise<void> => {
    const target = pathOf(key)
    await mkdir(join(target, '..'), { recursive: true, mode: DIR_MODE })
    await rename(temp, target)
  }

  const openFile = async (key: string): Promise<FileHandle> => {
    try {
      return await open(pathOf(key), 'r')
    } catch (error) {
      throw isMissing(error) ? new FileNotFoundError(key) : error
    }
  }

  const store: FileStore = {
    async put(key, source, { size, contentType }) {
      checkKey(key)
      const temp = join(tmp, randomUUID())
      const hash = createHash('sha256')
      const handle = await open(temp, 'wx', FILE_MODE)
      try {
        await pipeline(source, exactSize(size), async function (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            hash.update(chunk)
            await handle.write(chunk)
          }
        })
        const info: FileInfo = { size, contentType, etag: hash.digest('hex') }
        const trailer = Buffer.from(JSON.stringify(info))
        const length = Buffer.alloc(LENGTH_BYTES)
        length.writeUInt32BE(trailer.length)
        await handle.write(Buffer.concat([trailer, length]))
        await handle.sync()
        await handle.close()
        await place(temp, key)
        return info
      } catch (error) {
        await handle.close().catch(() => undefined)
        await rm(temp, { force: true })
        throw writeError(error)
      }
    },

    async get(key, options = {}) {
      const handle = await openFile(key)
      try {
        const info = await readInfo(handle)
        if (options.range) checkRange(options.range, info.size)
        const { start, end } = options.range ?? { start: 0, end: info.size - 1 }
        if (end < start) {
          await handle.close()
          return { ...info, stream: Readable.from([]) }
        }
        return { ...info, stream: handle.createReadStream({ start, end }) }
      } catch (error) {
        await handle.close()
        throw error
      }
    },

    async stat(key) {
      let handle: FileHandle
      try {
        handle = await openFile(key)
      } catch (error) {
        if (error instanceof FileNotFoundError) return null
        throw error
      }
      try {
        return await readInfo(handle)
      } finally {
        await handle.close()
      }
    },

    async exists(key) {
      return (await store.stat(key)) !== null
    },

    async copy(fromKey, toKey) {
      const info = await store.stat(fromKey)
      if (!info) throw new FileNotFoundError(fromKey)
      const temp = join(tmp, randomUUID())
      try {
        await copyFile(pathOf(fromKey), temp)
        // The copy has its source's mode, which a file stored before modes were set has looser.
        await chmod(temp, FILE_MODE)
        await place(temp, toKey)
      } catch (error) {
        await rm(temp, { force: true })
        throw isMissing(error) ? new FileNotFoundError(fromKey) : writeError(error)
      }
      return info
    },

    async remove(key) {
      await rm(pathOf(key), { force: true })
    },

    nameOf,

    async list({ after = '', limit }) {
      const folders = (await readdir(root)).filter((name) => LISTED_FOLDER.test(name)).sort()
      const afterFolder = after.slice(0, after.indexOf('/') + 1 || undefined)
      const listed: ListedFile[] = []
      for (const folder of folders) {
        if (listed.length === limit) break
        if (`${folder}/` < afterFolder) continue
        listed.push(...(await listFolder(folder, after, limit - listed.length)))
      }
      return listed
    },

    async removeListed(name) {
      if (!LISTED_NAME.test(name)) throw new InvalidKeyError(name)
      await rm(join(root, name), { force: true })
    },

    async ping() {
      await access(tmp, constants.W_OK)
    },

    async close() {},
  }
  return store
}
