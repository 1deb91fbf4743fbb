import { useState } from 'preact/hooks'
import { apiFetch, dataOf, headers, ok, q, quire, toError, type Data } from '../api.js'
import { ConfirmButton, ErrorText, formatBytes, Notice, useAction } from '../ui.js'
import type { Doc } from './documents.js'

/** An attachment's metadata as the document stores it. */
type Attachment = Data<'saveAttachments'>['attachments'][number]

const isAttachment = (value: unknown): value is Attachment =>
  typeof value === 'object' && value !== null && '_id' in value && '_fileName' in value

/** Top-level fields holding a list of attachments (and declared attachment fields, even while empty). */
function attachmentFields(document: Doc, declared: string[]): [string, Attachment[]][] {
  const found = new Map<string, Attachment[]>(declared.map((name) => [name, []]))
  for (const [name, value] of Object.entries(document)) {
    if (Array.isArray(value) && value.length > 0 && value.every(isAttachment)) found.set(name, value)
  }
  return [...found]
}

/**
 * XMLHttpRequest, not fetch nor the typed client: only it reports upload progress. So a 401 here is not renewed
 * and retried (the file would be sent twice); the session is renewed ahead of expiry anyway.
 */
export function upload(url: string, files: File[], onProgress: (fraction: number) => void): Promise<Doc | undefined> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', url)
    for (const [name, value] of Object.entries(headers())) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total)
    xhr.onerror = () => reject(new Error('The upload did not reach the server'))
    xhr.onload = () => {
      let body: unknown = null
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null
      } catch {
        // A proxy's HTML page: the status alone is told, never a JSON parser's message.
        return reject(toError(xhr.status >= 400 ? xhr.status : 502, null))
      }
      if (xhr.status >= 400) reject(toError(xhr.status, body))
      else resolve((body as { data: { document?: Doc } }).data.document)
    }
    const form = new FormData()
    for (const file of files) form.append('file', file, file.name)
    xhr.send(form)
  })
}

/** The bearer token rides in a header, so neither a plain link nor an `<img src>` can read a file: fetch it. */
export async function fetchFile(url: string): Promise<Blob> {
  const res = await apiFetch(new Request(url))
  if (!res.ok) throw toError(res.status, await res.json().catch(() => null))
  return res.blob()
}

async function download(url: string, name: string) {
  const href = URL.createObjectURL(await fetchFile(url))
  const link = document.createElement('a')
  link.href = href
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(href), 10_000)
}

interface Props {
  dd: string
  document: Doc
  declared: string[]
  onChange: (document: Doc) => void
}

export function Attachments({ dd, document: doc, declared, onChange }: Props) {
  const base = `/api/v2/document-definitions/${q(dd)}/documents/${q(doc._id)}/attachments`
  const fields = attachmentFields(doc, declared)
  const [valuePath, setValuePath] = useState(fields[0]?.[0] ?? 'files')
  const [files, setFiles] = useState<File[]>([])
  const [progress, setProgress] = useState<number | null>(null)
  const [notice, setNotice] = useState('')
  const [copying, setCopying] = useState<Attachment | null>(null)
  const [target, setTarget] = useState({ ddName: dd, by: '_id', id: '', valuePath: '' })
  const action = useAction()

  const send = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    action.run(async () => {
      setProgress(0)
      try {
        const updated = await upload(`${base}?valuePath=${q(valuePath)}`, files, setProgress)
        setNotice(`Uploaded ${files.map((file) => file.name).join(', ')}`)
        form.reset()
        setFiles([])
        if (updated) onChange(updated)
      } finally {
        setProgress(null)
      }
    })
  }
  const remove = (attachment: Attachment) =>
    action.run(async () => {
      const answer = await dataOf(
        quire.DELETE('/api/v2/document-definitions/{ddId}/documents/{id}/attachments/{attachmentId}', {
          params: { path: { ddId: dd, id: doc._id, attachmentId: attachment._id } },
        }),
      )
      setNotice(`Deleted ${attachment._fileName}`)
      onChange(answer.document)
    })
  const copy = (event: Event, field: string, attachment: Attachment) => {
    event.preventDefault()
    action.run(async () => {
      await ok(
        quire.POST('/api/v2/documents/copyAttachments', {
          body: [
            {
              source: { ddName: dd, _id: doc._id, valuePath: field, fileIds: [attachment._id] },
              target: { ddName: target.ddName, [target.by]: target.id, valuePath: target.valuePath || field },
            },
          ],
        }),
      )
      setCopying(null)
      setNotice(`Copied ${attachment._fileName} to ${target.id}`)
    })
  }

  return (
    <section class="attachments" aria-labelledby="attachments-title">
      <h2 id="attachments-title">Attachments</h2>
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={action.error} />
      {fields.length === 0 && <p>No attachments yet.</p>}
      {fields.map(([field, list]) => (
        <div key={field}>
          <h3>{field}</h3>
          <ul class="files">
            {list.map((attachment) => (
              <li key={attachment._id} data-file={attachment._fileName}>
                <span>
                  {attachment._fileName} <small>({formatBytes(attachment._size)})</small>
                </span>
                <button
                  type="button"
                  onClick={() => action.run(() => download(`${base}/${q(attachment._id)}`, attachment._fileName))}
                >
                  Download
                </button>
                <button type="button" onClick={() => setCopying(copying === attachment ? null : attachment)}>
                  Copy to…
                </button>
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete ${attachment._fileName}?`}
                  onConfirm={() => remove(attachment)}
                />
                {copying === attachment && (
                  <form class="panel copy" onSubmit={(e) => copy(e, field, attachment)}>
                    <label>
                      Target definition
                      <input
                        name="targetDefinition"
                        required
                        value={target.ddName}
                        onInput={(e) => setTarget({ ...target, ddName: e.currentTarget.value })}
                      />
                    </label>
                    <label>
                      Find the target by
                      <select
                        name="targetBy"
                        value={target.by}
                        onChange={(e) => setTarget({ ...target, by: e.currentTarget.value })}
                      >
                        <option value="_id">_id</option>
                        <option value="externalId">externalId</option>
                      </select>
                    </label>
                    <label>
                      Target document
                      <input
                        name="targetDocument"
                        required
                        value={target.id}
                        onInput={(e) => setTarget({ ...target, id: e.currentTarget.value })}
                      />
                    </label>
                    <label>
                      Target field
                      <input
                        name="targetValuePath"
                        placeholder={field}
                        value={target.valuePath}
                        onInput={(e) => setTarget({ ...target, valuePath: e.currentTarget.value })}
                      />
                    </label>
                    <button type="submit">Copy file</button>
                  </form>
                )}
              </li>
            ))}
          </ul>
        </div>
      ))}
      <form class="panel" onSubmit={send}>
        <h3>Upload</h3>
        <label>
          Field (valuePath)
          <input name="valuePath" required value={valuePath} onInput={(e) => setValuePath(e.currentTarget.value)} />
        </label>
        <label>
          Files
          <input
            name="files"
            type="file"
            multiple
            required
            onChange={(e) => setFiles([...(e.currentTarget.files ?? [])])}
          />
        </label>
        {progress !== null && (
          <label>
            Uploading
            <progress max={1} value={progress}>
              {Math.round(progress * 100)}%
            </progress>
          </label>
        )}
        <button type="submit" disabled={action.busy || files.length === 0}>
          Upload
        </button>
      </form>
    </section>
  )
}
