import { Fragment } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, dataOf, q, quire, raw, type Data, type Page } from '../api.js'
import { Link } from '../router.js'
import { ErrorText, messageOf, Notice, Title, useAction } from '../ui.js'
import { CodeEditor } from './code-editor.js'

const TRIGGERS = [
  'manual',
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'afterCreate',
  'afterUpdate',
  'afterDelete',
] as const satisfies readonly Trigger[]
type Trigger = Action['triggers'][number]

/** An action as a definition declares it; `source` is answered to administrators only. */
export type Action = NonNullable<Data<'getDefinition'>['actions']>[number]

type Run = Data<'listActionRuns'>[number]

const EXAMPLE = "if (!serverDocument.title) refuse('A title is required')\n"

/** Which action a validation error names: the API's description reads `body/actions/2/source: ...`. */
function actionIndexOf(error: unknown): number | null {
  if (!(error instanceof ApiError)) return null
  const match = /^body\/actions\/(\d+)/.exec(error.description)
  return match ? Number(match[1]) : null
}

/** The definition's actions, edited as a list and saved with one PATCH of `actions`. */
export function ActionsEditor({ dd, initial }: { dd: string; initial: Action[] }) {
  const [actions, setActions] = useState<Action[]>(initial)
  const [saved, setSaved] = useState(false)
  const action = useAction()
  useEffect(() => setActions(initial), [initial])

  const change = (index: number, patch: Partial<Action>) =>
    setActions((list) => list.map((item, i) => (i === index ? { ...item, ...patch } : item)))
  const toggle = (index: number, trigger: Trigger, on: boolean) => {
    const triggers = actions[index]?.triggers ?? []
    change(index, { triggers: on ? [...triggers, trigger] : triggers.filter((t) => t !== trigger) })
  }
  const save = (event: Event) => {
    event.preventDefault()
    setSaved(false)
    action.run(async () => {
      const body = actions.map(({ name, triggers, source, description }) => ({
        name,
        triggers,
        source: source ?? '',
        ...(description ? { description } : {}),
      }))
      const definition = await dataOf(
        quire.PATCH('/api/v2/document-definitions/{ddId}', { params: { path: { ddId: dd } }, body: { actions: body } }),
      )
      setActions(definition.actions ?? [])
      setSaved(true)
    })
  }
  const bad = actionIndexOf(action.error)

  return (
    <form class="panel" onSubmit={save} aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <p class="hint">
        Scripts run in a sandbox as the user who triggers them: <code>serverDocument</code>, <code>context</code>,{' '}
        <code>await REST.call(endpoint, method, headers, body)</code>, <code>refuse(message)</code>,{' '}
        <code>console.log</code>. <Link href={`/definitions/${q(dd)}/runs`}>Recent runs</Link>
      </p>
      {actions.map((item, index) => (
        <fieldset key={index} class={bad === index ? 'action invalid' : 'action'} data-action={item.name}>
          <legend>{item.name || `Action ${index + 1}`}</legend>
          <label>
            Name
            <input value={item.name} required onInput={(e) => change(index, { name: e.currentTarget.value })} />
          </label>
          <div class="triggers" role="group" aria-label={`Triggers of ${item.name || `action ${index + 1}`}`}>
            {TRIGGERS.map((trigger) => (
              <label key={trigger} class="check">
                <input
                  type="checkbox"
                  checked={item.triggers.includes(trigger)}
                  onChange={(e) => toggle(index, trigger, e.currentTarget.checked)}
                />
                {trigger}
              </label>
            ))}
          </div>
          <label>
            Description
            <input
              value={item.description ?? ''}
              onInput={(e) => change(index, { description: e.currentTarget.value })}
            />
          </label>
          <div class="label">Script</div>
          <CodeEditor
            label="Script"
            value={item.source ?? ''}
            invalid={bad === index}
            onChange={(source) => change(index, { source })}
          />
          {bad === index && (
            <p class="field-error" role="alert">
              {action.error instanceof ApiError ? action.error.description : messageOf(action.error)}
            </p>
          )}
          <button type="button" class="danger" onClick={() => setActions((list) => list.filter((_, i) => i !== index))}>
            Remove {item.name || 'action'}
          </button>
        </fieldset>
      ))}
      {bad === null && <ErrorText error={action.error} />}
      {saved && <Notice>Actions saved.</Notice>}
      <div class="actions">
        <button
          type="button"
          onClick={() => setActions((list) => [...list, { name: '', triggers: ['manual'], source: EXAMPLE }])}
        >
          Add action
        </button>
        <button type="submit" disabled={action.busy}>
          Save actions
        </button>
      </div>
    </form>
  )
}

/** The manual actions of a document's definition as buttons; each run's result, refusal or failure is shown. */
export function ManualActions(props: {
  dd: string
  documentId: string
  actions: Action[]
  onRan: () => Promise<unknown>
}) {
  const [outcome, setOutcome] = useState<{ name: string; text: string } | null>(null)
  const action = useAction()
  const manual = props.actions.filter((item) => item.triggers.includes('manual'))
  if (manual.length === 0) return null
  const run = (name: string) => {
    setOutcome(null)
    action.run(async () => {
      const answer = await dataOf(
        quire.POST('/api/v2/document-definitions/{ddId}/documents/{id}/actions/{name}', {
          params: { path: { ddId: props.dd, id: props.documentId, name } },
          body: {},
        }),
      )
      setOutcome({ name, text: answer.result === undefined ? 'done' : JSON.stringify(answer.result, null, 2) })
      await props.onRan()
    })
  }
  return (
    <section class="panel" aria-labelledby="run-title">
      <h2 id="run-title">Actions</h2>
      <div class="actions">
        {manual.map((item) => (
          <button
            key={item.name}
            type="button"
            disabled={action.busy}
            title={item.description}
            onClick={() => run(item.name)}
          >
            Run {item.name}
          </button>
        ))}
      </div>
      <ErrorText error={action.error} />
      {outcome && (
        <div role="status">
          <p>{outcome.name} answered:</p>
          <pre class="result">{outcome.text}</pre>
        </div>
      )}
    </section>
  )
}

/** The definition's recent runs (administrators), newest first, filtered by action and status. */
export function ActionRuns({ dd }: { dd: string }) {
  const [status, setStatus] = useState('')
  const [name, setName] = useState('')
  const [page, setPage] = useState<Page<Run> | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const action = useAction()
  const base = `/api/v2/document-definitions/${q(dd)}/action-runs`
  const load = (search: string, append: boolean) =>
    action.run(async () => {
      // `raw`: the answer's `pagination.next` is a ready query string, sent back as it is.
      const next = await raw<Page<Run>>(`${base}?${search}`)
      setPage((previous) => (append && previous ? { ...next, data: [...previous.data, ...next.data] } : next))
    })
  const first = () => {
    const params = new URLSearchParams({ limit: '50' })
    if (status) params.set('status', status)
    if (name) params.set('action', name)
    load(params.toString(), false)
  }
  useEffect(first, [dd])

  return (
    <section>
      <p>
        <Link href={`/definitions/${q(dd)}`}>← Definition {dd}</Link>
      </p>
      <Title text={`Action runs of ${dd}`} />
      <form
        class="panel filters"
        onSubmit={(e) => {
          e.preventDefault()
          first()
        }}
      >
        <label>
          Action
          <input name="action" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">any</option>
            <option value="succeeded">succeeded</option>
            <option value="refused">refused</option>
            <option value="failed">failed</option>
          </select>
        </label>
        <button type="submit">Show runs</button>
      </form>
      <ErrorText error={action.error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Trigger</th>
              <th scope="col">Document</th>
              <th scope="col">Status</th>
              <th scope="col">ms</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {page?.data.map((run) => (
              <Fragment key={run._id}>
                <tr data-run={run._id} class={run.status}>
                  <td>{run.createdOn}</td>
                  <th scope="row">{run.action}</th>
                  <td>{run.trigger}</td>
                  <td>
                    {run.documentId && (
                      <Link href={`/definitions/${q(dd)}/documents/${q(run.documentId)}`}>{run.documentId}</Link>
                    )}
                  </td>
                  <td>
                    {run.status}
                    {run.error ? ` (${run.error.kind})` : ''}
                  </td>
                  <td>{run.durationMs ?? ''}</td>
                  <td>
                    <button
                      type="button"
                      aria-expanded={open === run._id}
                      onClick={() => setOpen(open === run._id ? null : run._id)}
                    >
                      {open === run._id ? 'Hide' : 'Show'}
                    </button>
                  </td>
                </tr>
                {open === run._id && (
                  <tr>
                    <td colSpan={7}>
                      {run.error && <p class="error">{run.error.message}</p>}
                      <pre class="result">
                        {(run.logs ?? []).map((line) => `[${line.level}] ${line.message}`).join('\n') || 'No output.'}
                      </pre>
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      {page?.data.length === 0 && <p>No runs yet.</p>}
      {page?.pagination?.next && (
        <button type="button" onClick={() => load(page.pagination?.next ?? '', true)}>
          More runs
        </button>
      )}
    </section>
  )
}
