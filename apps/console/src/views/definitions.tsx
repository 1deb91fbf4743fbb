import { useEffect, useState } from 'preact/hooks'
import { ApiError, dataOf, ok, q, quire, type Data } from '../api.js'
import { useRole } from '../role.js'
import { Link, navigate } from '../router.js'
import { ConfirmButton, ErrorText, Notice, Title, useAction, useLoad } from '../ui.js'
import { ActionsEditor, type Action } from './actions.js'
import { fromSchema, SchemaBuilder, toSchema, type Schema } from './schema.js'

export type Definition = Data<'getDefinition'>

const EMPTY: Schema = { fields: [], indexes: [] }

/** The list, with create, copy and delete (deleting one that holds documents asks again, then sends `force`). */
export function Definitions() {
  const role = useRole()
  // Without `fields=` the list answers whole definitions: the schema makes every key optional for projections.
  const list = useLoad(
    () =>
      dataOf(quire.GET('/api/v2/document-definitions', { params: { query: { limit: 800 } } })) as Promise<Definition[]>,
    [],
  )
  const action = useAction()
  const [notice, setNotice] = useState('')
  const [force, setForce] = useState<Definition | null>(null)
  const [name, setName] = useState('')
  const [label, setLabel] = useState('')
  const [schema, setSchema] = useState(EMPTY)

  const create = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      const { fields, indexes } = fromSchema(schema)
      const created = await dataOf(
        quire.POST('/api/v2/document-definitions', {
          body: {
            name,
            ...(label ? { label } : {}),
            ...(schema.fields.length > 0 ? { fields } : {}),
            ...(indexes.length > 0 ? { indexes } : {}),
          },
        }),
      )
      setName('')
      setLabel('')
      setSchema(EMPTY)
      setNotice(`Created ${created.name}`)
      list.reload()
    })
  }
  const copy = (definition: Definition) =>
    action.run(async () => {
      const created = await dataOf(
        quire.POST('/api/v2/document-definitions', { params: { query: { sourceId: definition._id } }, body: {} }),
      )
      setNotice(`Copied ${definition.name} to ${created.name}`)
      list.reload()
    })
  const remove = (definition: Definition, withForce: boolean) =>
    action.run(async () => {
      try {
        await ok(
          quire.DELETE('/api/v2/document-definitions/{ddId}', {
            params: { path: { ddId: definition._id }, query: withForce ? { force: true } : {} },
          }),
        )
      } catch (err) {
        // The API refuses to drop a definition that still holds documents unless told `force`.
        if (err instanceof ApiError && err.code === 'validation_error' && /force/.test(err.description)) {
          setForce(definition)
          return
        }
        throw err
      }
      setForce(null)
      setNotice(`Deleted ${definition.name}`)
      list.reload()
    })

  return (
    <section>
      <Title text="Definitions" />
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={list.error ?? action.error} />
      {force && (
        <div class="warning" role="alertdialog" aria-labelledby="force-title">
          <p id="force-title">
            <strong>{force.name}</strong> still holds documents. Delete it with all its documents and their files?
          </p>
          <button type="button" class="danger" ref={(el) => el?.focus()} onClick={() => remove(force, true)}>
            Delete with its documents
          </button>
          <button type="button" onClick={() => setForce(null)}>
            Keep it
          </button>
        </div>
      )}
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Label</th>
              <th scope="col">Fields</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.value?.map((definition) => (
              <tr key={definition._id} data-name={definition.name}>
                <th scope="row">
                  <Link href={`/definitions/${q(definition.name)}/documents`}>{definition.name}</Link>
                </th>
                <td>{definition.label}</td>
                <td>{Object.keys(definition.fields ?? {}).join(', ')}</td>
                <td class="actions">
                  {role.administrator && (
                    <>
                      <Link href={`/definitions/${q(definition._id)}`} class="button">
                        Edit
                      </Link>
                      <button type="button" onClick={() => copy(definition)}>
                        Copy
                      </button>
                      <ConfirmButton
                        label="Delete"
                        danger
                        question={`Delete ${definition.name}?`}
                        onConfirm={() => remove(definition, false)}
                      />
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.value?.length === 0 && <p>No definitions yet.</p>}
      {role.administrator && (
        <form class="panel" onSubmit={create}>
          <h2>New definition</h2>
          <label>
            Name
            <input name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label>
            Label
            <input name="label" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
          </label>
          <SchemaBuilder schema={schema} onChange={setSchema} />
          <button type="submit" disabled={action.busy}>
            Create definition
          </button>
        </form>
      )}
    </section>
  )
}

/** Label, fields and indexes of one definition, saved with PATCH. */
export function DefinitionEdit({ dd }: { dd: string }) {
  const loaded = useLoad(
    () => dataOf(quire.GET('/api/v2/document-definitions/{ddId}', { params: { path: { ddId: dd } } })),
    [dd],
  )
  const action = useAction()
  const [label, setLabel] = useState('')
  const [schema, setSchema] = useState(EMPTY)
  const [saved, setSaved] = useState<Definition | null>(null)
  const definition = saved ?? loaded.value
  useEffect(() => {
    if (!loaded.value) return
    setLabel(loaded.value.label ?? '')
    setSchema(toSchema(loaded.value.fields, loaded.value.indexes))
  }, [loaded.value])

  const save = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      setSaved(
        await dataOf(
          quire.PATCH('/api/v2/document-definitions/{ddId}', {
            params: { path: { ddId: dd } },
            body: { label, ...fromSchema(schema) },
          }),
        ),
      )
    })
  }

  if (loaded.error) return <ErrorText error={loaded.error} />
  if (!definition) return <p>Loading…</p>
  return (
    <section>
      <p>
        <Link href="/definitions">← Definitions</Link>
      </p>
      <Title text={`Definition ${definition.name}`} />
      <form class="panel" onSubmit={save}>
        <label>
          Label
          <input name="label" value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <SchemaBuilder schema={schema} onChange={setSchema} />
        <ErrorText error={action.error} />
        {saved && <Notice>Saved.</Notice>}
        <button type="submit" disabled={action.busy}>
          Save definition
        </button>{' '}
        <button type="button" onClick={() => navigate(`/definitions/${q(definition.name)}/documents`)}>
          Open documents
        </button>
      </form>
      {definition.indexes && definition.indexes.length > 0 && (
        <>
          <h2>Index state</h2>
          <ul class="indexes">
            {definition.indexes.map((index) => (
              <li key={JSON.stringify(index.fields)}>
                <code>{JSON.stringify(index.fields)}</code>
                {index.unique ? ' unique' : ''} — {index.state ?? 'unknown'}
              </li>
            ))}
          </ul>
        </>
      )}
      <ActionsEditor dd={definition._id} initial={definition.actions ?? NO_ACTIONS} />
    </section>
  )
}

/** One empty list, so the editor is not reset by a new `[]` at each render. */
const NO_ACTIONS: Action[] = []
