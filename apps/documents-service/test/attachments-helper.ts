import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Attachment } from '@quire/contracts'
import type { App } from '@quire/service-kit'
import { documentsOf, type Built } from './helper.js'

/** Every regular file under `dir` (empty directories do not count). */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name))
}

export interface Upload {
  name: string
  content: Uint8Array | string
  type?: string
}

/** The objects the file store holds, as files on disk (s3rver keeps metadata files next to each object). */
export async function storedObjects(built: Pick<Built, 'adapter' | 'storageDir'>): Promise<string[]> {
  const paths = await filesUnder(built.storageDir)
  return built.adapter === 'local' ? paths : paths.filter((path) => path.endsWith('._S3rver_object'))
}

/** A multipart body with one `file` part per upload. */
export function form(uploads: Upload[]): FormData {
  const body = new FormData()
  for (const { name, content, type } of uploads) {
    body.append('file', new File([content], name, { type: type ?? 'text/plain' }))
  }
  return body
}

export const attachmentsOf = (ddId: string, id: string) => `${documentsOf(ddId)}/${encodeURIComponent(id)}/attachments`

/** `POST .../attachments?<query>` with the uploads; the raw response. */
export function upload(
  server: App,
  as: Record<string, string>,
  ddId: string,
  id: string,
  query: string,
  uploads: Upload[],
  method: 'POST' | 'PUT' = 'POST',
) {
  return server.inject({ method, url: `${attachmentsOf(ddId, id)}?${query}`, headers: as, payload: form(uploads) })
}

/** The file key the service uses, to look into the store from a test. */
export const keyOf = (
  environmentId: string,
  definitionId: string,
  documentId: string,
  attachment: Pick<Attachment, '_id'>,
) => `${environmentId}/${definitionId}/${documentId}/${attachment._id}`

/** A PNG signature and header chunk: all image-size needs to read `width`×`height`. */
export function pngHeader(width: number, height: number): Uint8Array {
  const bytes = Buffer.alloc(33)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]).copy(bytes, 0)
  bytes.writeUInt32BE(width, 16)
  bytes.writeUInt32BE(height, 20)
  bytes.set([8, 6, 0, 0, 0], 24)
  return bytes
}
