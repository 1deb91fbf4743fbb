import { useEffect, useState } from 'preact/hooks'
import { dataOf, q, quire, type Data } from '../api.js'
import { ConfirmButton, ErrorText, formatBytes, useAction } from '../ui.js'
import { fetchFile, upload } from './attachments.js'
import type { Doc } from './documents.js'

type Stored = Data<'saveAttachments'>['attachments'][number]

/** Previews are fetched whole (the API has no thumbnails): past this size the file is only named. */
const PREVIEW_LIMIT = 5 * 1024 * 1024

const isStored = (value: unknown): value is Stored =>
  typeof value === 'object' && value !== null && '_id' in value && '_fileName' in value && '_size' in value

/** An image attachment as an `<img>`: its bytes need the bearer header, so they come through a blob URL. */
function Preview({ url, file }: { url: string; file: Stored }) {
  const [src, setSrc] = useState<string | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let href: string | null = null
    let live = true
    fetchFile(url).then(
      (blob) => {
        if (!live) return
        href = URL.createObjectURL(blob)
        setSrc(href)
      },
      () => live && setFailed(true),
    )
    return () => {
      live = false
      if (href) URL.revokeObjectURL(href)
    }
  }, [url])
  if (failed) return <span class="thumb">No preview</span>
  return src ? <img class="thumb" src={src} alt={file._fileName} /> : <span class="thumb">Loading…</span>
}

/**
 * A declared attachment field inside the document form: its files with image previews and read-only metadata,
 * added by dropping files on it or choosing them (keyboards), each upload stored at once, its progress shown.
 */
export function AttachmentField(props: {
  dd: string
  document: Doc | null
  name: string
  onDocument: (document: Doc) => void
}) {
  const { dd, document: doc, name } = props
  const [progress, setProgress] = useState<number | null>(null)
  const [over, setOver] = useState(false)
  const action = useAction()
  if (!doc) return <p class="hint">Create the document first, then add files to {name}.</p>
  const base = `/api/v2/document-definitions/${q(dd)}/documents/${q(doc._id)}/attachments`
  const value = doc[name]
  const files = Array.isArray(value) ? value.filter(isStored) : []

  const send = (chosen: File[]) => {
    if (chosen.length === 0) return
    action.run(async () => {
      setProgress(0)
      try {
        const updated = await upload(`${base}?valuePath=${q(name)}`, chosen, setProgress)
        if (updated) props.onDocument(updated)
      } finally {
        setProgress(null)
      }
    })
  }
  const remove = (file: Stored) =>
    action.run(async () => {
      const answer = await dataOf(
        quire.DELETE('/api/v2/document-definitions/{ddId}/documents/{id}/attachments/{attachmentId}', {
          params: { path: { ddId: dd, id: doc._id, attachmentId: file._id } },
        }),
      )
      props.onDocument(answer.document)
    })

  return (
    <div
      id={`field-${name}`}
      class={over ? 'dropzone over' : 'dropzone'}
      data-dropzone={name}
      onDragOver={(event) => {
        event.preventDefault()
        setOver(true)
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault()
        setOver(false)
        send([...(event.dataTransfer?.files ?? [])])
      }}
    >
      <ul class="stored-files">
        {files.map((file) => (
          <li key={file._id} data-attachment={file._fileName}>
            {file._contentType.startsWith('image/') && file._size <= PREVIEW_LIMIT ? (
              <Preview url={`${base}/${q(file._id)}`} file={file} />
            ) : (
              <span class="thumb">{file._contentType}</span>
            )}
            <dl class="file-meta">
              <dt>Name</dt>
              <dd>{file._fileName}</dd>
              <dt>Size</dt>
              <dd>{formatBytes(file._size)}</dd>
              {file._width !== undefined && file._height !== undefined && (
                <>
                  <dt>Dimensions</dt>
                  <dd>
                    {file._width} × {file._height}
                  </dd>
                </>
              )}
            </dl>
            <ConfirmButton
              label={`Remove ${file._fileName}`}
              question={`Remove ${file._fileName} from ${name}?`}
              danger
              onConfirm={() => remove(file)}
            />
          </li>
        ))}
      </ul>
      <p class="hint">{files.length ? 'Drop more files here, or:' : 'No files yet. Drop files here, or:'}</p>
      <label class="choose">
        Add to {name}
        <input
          type="file"
          multiple
          disabled={action.busy}
          onChange={(event) => {
            const input = event.currentTarget
            send([...(input.files ?? [])])
            // The same file can be chosen again after an error.
            input.value = ''
          }}
        />
      </label>
      {progress !== null && (
        <progress max={1} value={progress} aria-label={`Sending to ${name}`}>
          {Math.round(progress * 100)}%
        </progress>
      )}
      <ErrorText error={action.error} />
    </div>
  )
}
