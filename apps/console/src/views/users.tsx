import { useEffect, useState } from 'preact/hooks'
import type { operations } from '@quire/client'
import { dataOf, environment, ok, q, quire, type Data } from '../api.js'
import { useRole } from '../role.js'
import { Link } from '../router.js'
import { ConfirmButton, ErrorText, Notice, Title, useAction, useLoad } from '../ui.js'

type User = Data<'getUser'>[number]
type Entry = NonNullable<User['profile']>['environments'][string]
/** The one answer that carries the secret `token`, shown once. */
type CreatedToken = Data<'createLongLivedToken'>[number]

const entryOf = (user: User): Entry | undefined => user.profile?.environments[environment.get()]
const groupsOf = (text: string) =>
  text
    .split(',')
    .map((group) => group.trim())
    .filter(Boolean)

export function Users() {
  const role = useRole()
  const [after, setAfter] = useState<string[]>([])
  const cursor = after[after.length - 1]
  const page = useLoad(
    () => ok(quire.GET('/api/v2/users', { params: { query: { limit: 50, ...(cursor ? { after: cursor } : {}) } } })),
    [cursor],
  )
  const active = useLoad(() => dataOf(quire.GET('/api/v2/usage-statistics/active-users')), [page.value])
  const action = useAction()
  const [notice, setNotice] = useState('')
  const [form, setForm] = useState({
    username: '',
    password: '',
    email: '',
    name: '',
    groups: '',
    administrator: false,
  })
  const set = (patch: Partial<typeof form>) => setForm({ ...form, ...patch })

  const create = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      const [user] = await dataOf(
        quire.POST('/api/v2/users', {
          body: {
            username: form.username,
            ...(form.password ? { password: form.password } : {}),
            ...(form.email ? { email: form.email } : {}),
            ...(form.name ? { name: form.name } : {}),
            administrator: form.administrator,
            groups: groupsOf(form.groups),
          },
        }),
      )
      setNotice(`Created ${user?.username ?? form.username}`)
      setForm({ username: '', password: '', email: '', name: '', groups: '', administrator: false })
      page.reload()
    })
  }
  const rows = page.value?.data ?? []
  return (
    <section>
      <Title text="Users" />
      <p>
        Active users in this environment: <strong data-testid="users-active">{active.value?.activeUsers ?? '…'}</strong>
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={page.error ?? action.error} />
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Administrator</th>
              <th scope="col">Active</th>
              <th scope="col">Groups</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((user) => {
              const entry = entryOf(user)
              return (
                <tr key={user._id} data-username={user.username}>
                  <th scope="row">
                    <Link href={`/users/${q(user._id)}`}>{user.username ?? user._id}</Link>
                  </th>
                  <td>{entry?.name}</td>
                  <td>{entry?.email}</td>
                  <td>{entry?.administrator ? 'yes' : 'no'}</td>
                  <td>{entry?.active ? 'yes' : 'no'}</td>
                  <td>{entry?.groups.join(', ')}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={after.length === 0} onClick={() => setAfter(after.slice(0, -1))}>
          Previous page
        </button>
        <button
          type="button"
          disabled={!page.value?.pagination?.hasNext}
          onClick={() => setAfter([...after, rows[rows.length - 1]?._id ?? ''])}
        >
          Next page
        </button>
      </nav>
      {role.administrator && (
        <form class="panel" onSubmit={create}>
          <h2>New user</h2>
          <label>
            Username
            <input
              name="username"
              required
              value={form.username}
              onInput={(e) => set({ username: e.currentTarget.value })}
            />
          </label>
          <label>
            Password
            <input
              name="password"
              type="password"
              autocomplete="new-password"
              value={form.password}
              onInput={(e) => set({ password: e.currentTarget.value })}
            />
          </label>
          <label>
            Name
            <input name="name" value={form.name} onInput={(e) => set({ name: e.currentTarget.value })} />
          </label>
          <label>
            E-mail
            <input
              name="email"
              type="email"
              value={form.email}
              onInput={(e) => set({ email: e.currentTarget.value })}
            />
          </label>
          <label>
            Groups (comma-separated)
            <input name="groups" value={form.groups} onInput={(e) => set({ groups: e.currentTarget.value })} />
          </label>
          <label class="check">
            <input
              name="administrator"
              type="checkbox"
              checked={form.administrator}
              onChange={(e) => set({ administrator: e.currentTarget.checked })}
            />
            Administrator
          </label>
          <button type="submit" disabled={action.busy}>
            Create user
          </button>
        </form>
      )}
    </section>
  )
}

/** One user: roles in this environment, deactivation, 2FA reset, long-lived tokens. */
export function UserDetail({ userId }: { userId: string }) {
  const role = useRole()
  const loaded = useLoad(() => dataOf(quire.GET('/api/v2/users/{userId}', { params: { path: { userId } } })), [userId])
  const tokens = useLoad(
    () => dataOf(quire.GET('/api/v2/users/{userId}/long-lived-tokens', { params: { path: { userId } } })),
    [userId],
  )
  const tokenCount = tokens.value?.length ?? 0
  const action = useAction()
  const [notice, setNotice] = useState('')
  const [user, setUser] = useState<User | null>(null)
  const [roles, setRoles] = useState({ administrator: false, active: true, groups: '' })
  const [tokenName, setTokenName] = useState('')
  const [secret, setSecret] = useState<CreatedToken | null>(null)

  const show = (value: User) => {
    setUser(value)
    const entry = entryOf(value)
    setRoles({
      administrator: entry?.administrator ?? false,
      active: entry?.active ?? false,
      groups: entry?.groups.join(', ') ?? '',
    })
  }
  useEffect(() => {
    if (loaded.value?.[0]) show(loaded.value[0])
  }, [loaded.value])

  const patch = (
    body: NonNullable<operations['updateUser']['requestBody']>['content']['application/json'],
    message: string,
  ) =>
    action.run(async () => {
      const [updated] = await dataOf(quire.PATCH('/api/v2/users/{userId}', { params: { path: { userId } }, body }))
      if (updated) show(updated)
      setNotice(message)
    })
  const saveRoles = (event: Event) => {
    event.preventDefault()
    patch({ administrator: roles.administrator, groups: groupsOf(roles.groups) }, 'Roles saved.')
  }
  const createToken = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      const [created] = await dataOf(
        quire.POST('/api/v2/users/{userId}/long-lived-tokens', {
          params: { path: { userId } },
          body: tokenName ? { name: tokenName } : {},
        }),
      )
      setSecret(created ?? null)
      setTokenName('')
      tokens.reload()
    })
  }

  if (loaded.error) return <ErrorText error={loaded.error} />
  if (!user) return <p>Loading…</p>
  const entry = entryOf(user)
  return (
    <section>
      <p>
        <Link href="/users">← Users</Link>
      </p>
      <Title text={`User ${user.username}`} />
      <p>
        {entry?.active ? 'Active' : 'Deactivated'} in {environment.get()}
        {user.isSuperAdministrator ? ' · super-administrator' : ''}
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={action.error} />
      {role.administrator && (
        <>
          <form class="panel" onSubmit={saveRoles}>
            <h2>Roles</h2>
            <label class="check">
              <input
                name="administrator"
                type="checkbox"
                checked={roles.administrator}
                onChange={(e) => setRoles({ ...roles, administrator: e.currentTarget.checked })}
              />
              Administrator
            </label>
            <label>
              Groups (comma-separated)
              <input
                name="groups"
                value={roles.groups}
                onInput={(e) => setRoles({ ...roles, groups: e.currentTarget.value })}
              />
            </label>
            <button type="submit" disabled={action.busy}>
              Save roles
            </button>
          </form>
          <div class="panel actions">
            <h2>Account</h2>
            {entry?.active ? (
              <ConfirmButton
                label="Deactivate"
                danger
                question={`Deactivate ${user.username}?`}
                onConfirm={() => patch({ active: false }, 'Deactivated.')}
              />
            ) : (
              <button type="button" onClick={() => patch({ active: true }, 'Activated.')}>
                Activate
              </button>
            )}
            <ConfirmButton
              label="Reset 2FA"
              danger
              question={`Remove this user's two-factor setup, end its sessions and revoke its ${tokenCount} long-lived token(s)?`}
              onConfirm={() =>
                action.run(async () => {
                  const reset = await dataOf(quire.POST('/auth/reset-2FA', { body: { userId } }))
                  setNotice(
                    `Two-factor authentication reset. Long-lived tokens revoked: ${reset.revokedLongLivedTokens}.`,
                  )
                  tokens.reload()
                })
              }
            />
          </div>
        </>
      )}
      <section class="panel" aria-labelledby="tokens-title">
        <h2 id="tokens-title">Long-lived tokens</h2>
        {secret && (
          <div class="secret" role="status">
            <p>
              Token <strong>{secret.name}</strong> created. Copy it now: it is shown only once.
            </p>
            <code data-testid="token-secret">{secret.token}</code>
            <button type="button" onClick={() => setSecret(null)}>
              Done
            </button>
          </div>
        )}
        <ErrorText error={tokens.error} />
        <ul class="tokens">
          {tokens.value?.map((token) => (
            <li key={token._id} data-token={token.name}>
              <span>
                {token.name}{' '}
                <small>
                  expires {token.expiresOn ?? 'never'} · last used {token.lastUsedOn ?? 'never'}
                </small>
              </span>
              <ConfirmButton
                label="Revoke"
                danger
                question={`Revoke ${token.name}?`}
                onConfirm={() =>
                  action.run(async () => {
                    await ok(
                      quire.DELETE('/api/v2/users/{userId}/long-lived-tokens/{tokenId}', {
                        params: { path: { userId, tokenId: token._id } },
                      }),
                    )
                    setNotice(`Revoked ${token.name}`)
                    tokens.reload()
                  })
                }
              />
            </li>
          ))}
        </ul>
        {tokens.value?.length === 0 && <p>No tokens.</p>}
        <form onSubmit={createToken}>
          <label>
            Token name
            <input name="tokenName" value={tokenName} onInput={(e) => setTokenName(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={action.busy}>
            Create token
          </button>
        </form>
      </section>
    </section>
  )
}
