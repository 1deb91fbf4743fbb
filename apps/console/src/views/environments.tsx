import { useState } from 'preact/hooks'
import { ApiError, environment, ok, quire } from '../api.js'
import { environmentsChanged, useEnvironments, type Environment } from '../environments.js'
import { useRole } from '../role.js'
import { ConfirmButton, ErrorText, Notice, Title, useAction } from '../ui.js'

const label = (env: Environment) => (env.name && env.name !== env._id ? `${env.name} (${env._id})` : env._id)

/** One environment's row: a super-administrator renames, deactivates or deletes it; anyone else only reads. */
function Row(props: { env: Environment; manage: boolean; onDone: (notice: string) => void }) {
  const { env } = props
  const [name, setName] = useState<string | null>(null)
  // Set when the API refused a delete because users still have entries: the second step removes them too.
  const [needsForce, setNeedsForce] = useState(false)
  const action = useAction()
  const patch = (body: { name?: string; active?: boolean }, notice: string) =>
    action.run(async () => {
      await ok(
        quire.PATCH('/api/v2/environments/{environmentId}', { params: { path: { environmentId: env._id } }, body }),
      )
      setName(null)
      environmentsChanged()
      props.onDone(notice)
    })
  const remove = (force: boolean) =>
    action.run(async () => {
      try {
        await ok(
          quire.DELETE('/api/v2/environments/{environmentId}', {
            params: { path: { environmentId: env._id }, query: force ? { force: true } : {} },
          }),
        )
      } catch (err) {
        if (!force && err instanceof ApiError && err.code === 'validation_error') setNeedsForce(true)
        throw err
      }
      if (environment.get() === env._id) environment.set('')
      environmentsChanged()
      props.onDone(`Environment ${env._id} deleted.`)
    })

  return (
    <tr data-environment={env._id}>
      <th scope="row">
        <code>{env._id}</code>
      </th>
      <td>
        {name === null ? (
          env.name
        ) : (
          <form
            class="inline"
            onSubmit={(event) => {
              event.preventDefault()
              patch({ name: name.trim() }, `Environment ${env._id} renamed to ${name.trim()}.`)
            }}
          >
            <label>
              New name of {env._id}
              <input required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            <button type="submit" disabled={action.busy}>
              Save name
            </button>
            <button type="button" onClick={() => setName(null)}>
              Cancel
            </button>
          </form>
        )}
      </td>
      <td>{env.active ? 'active' : 'deactivated'}</td>
      {props.manage && (
        <td class="actions">
          {name === null && (
            <button type="button" onClick={() => setName(env.name)}>
              Rename
            </button>
          )}
          {env.active ? (
            <ConfirmButton
              label="Deactivate"
              question={`Deactivate ${label(env)}? Only super-administrators can enter it until it is reactivated.`}
              onConfirm={() => patch({ active: false }, `Environment ${env._id} deactivated.`)}
            />
          ) : (
            <button type="button" onClick={() => patch({ active: true }, `Environment ${env._id} reactivated.`)}>
              Reactivate
            </button>
          )}
          {needsForce ? (
            <ConfirmButton
              label="Delete with its users' access"
              danger
              question={`Delete ${label(env)} and remove every user's access to it? This cannot be undone.`}
              onConfirm={() => remove(true)}
            />
          ) : (
            <ConfirmButton
              label="Delete"
              danger
              question={`Delete ${label(env)}? Its id can never be used again and its data becomes unreachable.`}
              onConfirm={() => remove(false)}
            />
          )}
          <ErrorText error={action.error} />
        </td>
      )}
    </tr>
  )
}

/** The environments the user may enter; super-administrators also create and manage them. */
export function Environments() {
  const role = useRole()
  const { list, error } = useEnvironments()
  const [form, setForm] = useState({ _id: '', name: '' })
  const [notice, setNotice] = useState('')
  const action = useAction()
  const create = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      await ok(quire.POST('/api/v2/environments', { body: { _id: form._id.trim(), name: form.name.trim() } }))
      setNotice(`Environment ${form._id.trim()} created.`)
      setForm({ _id: '', name: '' })
      environmentsChanged()
    })
  }
  return (
    <section>
      <Title text="Environments" />
      <p class="hint">
        {role.superAdministrator
          ? 'Every environment of this server, deactivated ones included.'
          : 'The environments you can enter.'}
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              {role.superAdministrator && <th scope="col">Manage</th>}
            </tr>
          </thead>
          <tbody>
            {list?.map((env) => (
              <Row key={env._id} env={env} manage={role.superAdministrator} onDone={setNotice} />
            ))}
          </tbody>
        </table>
      </div>
      {list?.length === 0 && <p>No environment yet.</p>}
      {role.superAdministrator && (
        <form class="panel" onSubmit={create}>
          <h2>New environment</h2>
          <label>
            Id <small>(lower-case letters, digits, - and _; cannot change later)</small>
            <input
              name="environmentId"
              required
              pattern={'[a-z0-9][a-z0-9_\\-]{0,63}'}
              value={form._id}
              onInput={(e) => setForm({ ...form, _id: e.currentTarget.value })}
            />
          </label>
          <label>
            Name
            <input
              name="environmentName"
              required
              maxLength={200}
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </label>
          <ErrorText error={action.error} />
          <button type="submit" disabled={action.busy}>
            Create environment
          </button>
        </form>
      )}
    </section>
  )
}
