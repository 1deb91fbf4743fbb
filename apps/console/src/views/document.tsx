import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, dataOf, ok, q, quire } from '../api.js'
import { useChanges } from '../live.js'
import { guardLeaving, Link, navigate } from '../router.js'
import { ConfirmButton, ErrorText, messageOf, Notice, Title, useAction, useLoad } from '../ui.js'
import { ManualActions } from './actions.js'
import { AttachmentField } from './attachment-field.js'
import { Attachments } from './attachments.js'
import type { Doc } from './documents.js'
import { DocumentForm } from './form.js'

/**
 * What a client writes: everything but the system fields (`_…`), externalId (its own input) and the attachment
 * fields, whose metadata describes stored files: the attachments panel manages them, and saving sends them back
 * as they are.
 */
function editable(document: Doc, attachmentFields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(document).filter(
      ([key]) => !key.startsWith('_') && key !== 'externalId' && !attachmentFields.includes(key),
    ),
  )
}

/** The JSON text as an object, or null while it does not parse to one (the form waits for the JSON view). */
function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** Which field a validation error names: the API's description reads `body/price: Expected number`. */
function fieldOf(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null
  if (error.code === 'duplicate_external_id') return 'externalId'
  const match = /^body\/([^/:\s]+)/.exec(error.description)
  return match?.[1] ?? null
}

/** The detail of an error, for the field it belongs to: the technical text past the field's name. */
const detailOf = (error: unknown) =>
  error instanceof ApiError ? error.description.replace(/^body\/[^:]*:\s*/, '') : messageOf(error)

export function DocumentEditor({ dd, id }: { dd: string; id: string }) {
  const isNew = id === 'new'
  const definition = useLoad(
    () => dataOf(quire.GET('/api/v2/document-definitions/{ddId}', { params: { path: { ddId: dd } } })),
    [dd],
  )
  const read = (documentId: string) =>
    ok(
      quire.GET('/api/v2/document-definitions/{ddId}/documents/{id}', {
        params: { path: { ddId: dd, id: documentId } },
      }),
    ) as Promise<Doc>
  const loaded = useLoad(() => (isNew ? Promise.resolve(null) : read(id)), [dd, id])
  const [doc, setDoc] = useState<Doc | null>(null)
  const [text, setText] = useState('{}')
  const [externalId, setExternalId] = useState('')
  // What was last loaded or saved: the edit is unsaved while the text or externalId differ from it.
  const [baseline, setBaseline] = useState({ text: '{}', externalId: '' })
  const [saved, setSaved] = useState(false)
  // The document as the change feed last told it, when it changed elsewhere: 'deleted' once it is gone.
  const [remote, setRemote] = useState<Doc | 'deleted' | null>(null)
  const [reloaded, setReloaded] = useState(false)
  const action = useAction()

  const declared = Object.entries(definition.value?.fields ?? {})
  const attachmentFields = declared.filter(([, spec]) => spec.type === 'attachment').map(([name]) => name)
  const show = (value: Doc) => {
    const shown = JSON.stringify(editable(value, attachmentFields), null, 2)
    setDoc(value)
    setText(shown)
    setExternalId(value.externalId ?? '')
    setBaseline({ text: shown, externalId: value.externalId ?? '' })
    // What is shown is now the version to compare the feed's next news with.
    setRemote(null)
  }
  const dirty = text !== baseline.text || externalId !== baseline.externalId
  useEffect(() => {
    if (!dirty) return
    const ask = (event: BeforeUnloadEvent) => event.preventDefault()
    addEventListener('beforeunload', ask)
    guardLeaving(() => confirm('Leave this document without saving your changes?'))
    return () => {
      removeEventListener('beforeunload', ask)
      guardLeaving(null)
    }
  }, [dirty])
  const parsed = parseObject(text)
  const formValue = { ...parsed, ...Object.fromEntries(attachmentFields.map((name) => [name, doc?.[name]])) }
  const setFromForm = (next: Record<string, unknown>) =>
    setText(JSON.stringify(editable(next as Doc, attachmentFields), null, 2))
  useEffect(() => {
    if (loaded.value && definition.value) show(loaded.value)
  }, [loaded.value, definition.value])

  const openId = doc?._id ?? id
  // Counts the feed's news of this document: a read started before the latest news must not undo it.
  const told = useRef(0)
  useChanges(dd, (change) => {
    if (isNew) return
    if (change === undefined) {
      // Maybe missed: read it again, and compare as if the feed had told it.
      const before = told.current
      const tell = (news: Doc | 'deleted') => before === told.current && setRemote(news)
      read(openId).then(tell, (error: unknown) => {
        if (error instanceof ApiError && error.status === 404) tell('deleted')
      })
    } else if (change._id === openId) {
      told.current++
      setRemote(change.operation === 'delete' ? 'deleted' : (change.document as Doc))
    }
  })
  // Changed elsewhere: `_hash` tells another's write from this page's own save, told back by the feed.
  const changedElsewhere = remote !== null && remote !== 'deleted' && doc !== null && remote._hash !== doc._hash
  useEffect(() => {
    if (!changedElsewhere || dirty || action.busy) return
    // Nothing unsaved to lose: show the new version at once, and say so.
    show(remote)
    setReloaded(true)
  }, [remote, dirty, action.busy])
  const reloadRemote = () => {
    if (remote === null || remote === 'deleted') return
    if (!confirm('Reload this document and discard your unsaved changes?')) return
    show(remote)
    setReloaded(true)
  }

  const save = (event: Event) => {
    event.preventDefault()
    setSaved(false)
    action.run(async () => {
      let body: Record<string, unknown>
      try {
        body = JSON.parse(text) as Record<string, unknown>
      } catch (err) {
        throw new Error(`The document is not valid JSON: ${(err as Error).message}`)
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new Error('The document must be a JSON object')
      }
      if (externalId) body.externalId = externalId
      for (const name of attachmentFields) if (doc?.[name] !== undefined) body[name] = doc[name]
      if (isNew) {
        const { data: created } = await ok(
          quire.POST('/api/v2/document-definitions/{ddId}/documents/new', { params: { path: { ddId: dd } }, body }),
        )
        setBaseline({ text, externalId })
        navigate(`/definitions/${q(dd)}/documents/${q(created._id)}`, { force: true })
        return
      }
      // `If-Match`: a version changed elsewhere since it was loaded is refused (412), never overwritten.
      const answer = await ok(
        quire.PUT('/api/v2/document-definitions/{ddId}/documents/{id}', {
          params: {
            path: { ddId: dd, id: doc?._id ?? id },
            header: typeof doc?._hash === 'string' ? { 'if-match': `"${doc._hash}"` } : {},
          },
          body,
        }),
      )
      show(answer.data as Doc)
      setReloaded(false)
      setSaved(true)
    })
  }
  const remove = () =>
    action.run(async () => {
      await ok(
        quire.DELETE('/api/v2/document-definitions/{ddId}/documents/{id}', {
          params: { path: { ddId: dd, id: doc?._id ?? id } },
        }),
      )
      navigate(`/definitions/${q(dd)}/documents`, { force: true })
    })

  const badField = fieldOf(action.error)
  const fieldError = (name: string) =>
    badField === name ? (
      <span class="field-error" id={`error-${name}`} role="alert">
        {detailOf(action.error)}
      </span>
    ) : null
  // The error goes beside its field when the form shows that field, else under the editor.
  const shownBeside = badField === 'externalId' || declared.some(([name]) => name === badField)

  if (loaded.error) return <ErrorText error={loaded.error} />
  if (definition.error) return <ErrorText error={definition.error} />
  if (!isNew && !doc) return <p>Loading…</p>
  return (
    <section>
      <p>
        <Link href={`/definitions/${q(dd)}/documents`}>← Documents of {dd}</Link>
      </p>
      <Title text={isNew ? `New document in ${dd}` : `Document ${doc?._id}`} />
      <div class="editor">
        <form class="panel" onSubmit={save}>
          <label>
            externalId
            <input
              name="externalId"
              value={externalId}
              aria-invalid={badField === 'externalId'}
              aria-describedby={badField === 'externalId' ? 'error-externalId' : undefined}
              onInput={(e) => setExternalId(e.currentTarget.value)}
            />
            {fieldError('externalId')}
          </label>
          {declared.length > 0 &&
            (parsed ? (
              <DocumentForm
                declared={declared}
                value={formValue}
                onChange={setFromForm}
                errorField={badField}
                errorText={detailOf(action.error)}
                attachment={(name) => (
                  <AttachmentField
                    dd={dd}
                    document={doc}
                    name={name}
                    onDocument={(next) => {
                      setDoc(next)
                      setRemote(null)
                    }}
                  />
                )}
              />
            ) : (
              <p class="hint">The JSON does not parse to an object: fix it there to use the form again.</p>
            ))}
          {attachmentFields.length > 0 && (
            <p class="hint">
              Files are stored as soon as they are added or removed, whatever else is saved; their metadata is
              read-only.
            </p>
          )}
          {remote === 'deleted' && (
            <p class="warning" role="alert">
              This document was deleted elsewhere. Saving it again is not possible; copy what you need.
            </p>
          )}
          {changedElsewhere && dirty && (
            <div class="warning" role="alert">
              <p>
                This document was changed elsewhere. Your unsaved changes are kept: saving them now would be refused
                until you reload.
              </p>
              <button type="button" onClick={reloadRemote}>
                Reload and discard my changes
              </button>
            </div>
          )}
          {reloaded && !changedElsewhere && remote !== 'deleted' && (
            <Notice>This document was changed elsewhere and has been reloaded.</Notice>
          )}
          <ErrorText error={action.error} />
          {badField && !shownBeside && (
            <p class="field-error" id={`error-${badField}`}>
              Field {badField}: {detailOf(action.error)}
            </p>
          )}
          {saved && <p role="status">Saved.</p>}
          <div class="actions">
            <button type="submit" disabled={action.busy || remote === 'deleted'}>
              {isNew ? 'Create document' : 'Save document'}
            </button>
            {!isNew && (
              <ConfirmButton
                label="Delete document"
                danger
                question="Delete this document?"
                onConfirm={() => remove()}
              />
            )}
          </div>
        </form>
        <aside class="panel" aria-label="JSON">
          <h2>JSON</h2>
          <p class="hint">The same fields as the form, and any the definition does not declare.</p>
          <label>
            Fields (JSON)
            <textarea
              name="document"
              rows={14}
              spellcheck={false}
              value={text}
              aria-invalid={Boolean(badField && badField !== 'externalId')}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </label>
        </aside>
      </div>
      {doc && (
        <>
          <dl class="meta">
            <dt>Created</dt>
            <dd>{String(doc._createdOn ?? '')}</dd>
            <dt>Modified</dt>
            <dd>{String(doc._lastModifiedOn ?? '')}</dd>
          </dl>
          <ManualActions
            dd={dd}
            documentId={doc._id}
            actions={definition.value?.actions ?? []}
            onRan={async () => show(await read(doc._id))}
          />
          <Attachments dd={dd} document={doc} declared={attachmentFields} onChange={show} />
        </>
      )}
    </section>
  )
}
