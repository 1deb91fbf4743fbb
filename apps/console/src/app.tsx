import { useEffect, useState } from 'preact/hooks'
import { environment, ok, quire, session, whenExpired, type Session } from './api.js'
import { useEnvironments } from './environments.js'
import { RoleContext, useOwnRole } from './role.js'
import { Link, navigate, usePath } from './router.js'
import { Title } from './ui.js'
import { Account } from './views/account.js'
import { ActionRuns } from './views/actions.js'
import { Definitions, DefinitionEdit } from './views/definitions.js'
import { DocumentEditor } from './views/document.js'
import { Documents } from './views/documents.js'
import { Environments } from './views/environments.js'
import { Home } from './views/home.js'
import { Login } from './views/login.js'
import { Packages } from './views/packages.js'
import { ResetPassword } from './views/reset-password.js'
import { Transfer } from './views/transfer.js'
import { UserDetail, Users } from './views/users.js'

/** The environments the API lists for the user; a text field when it cannot answer (remembered in localStorage). */
function EnvironmentSwitcher({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const { list, error } = useEnvironments()
  const [typed, setTyped] = useState(value)
  useEffect(() => {
    // A first visit starts in the first environment rather than on an empty page, and so does a visit to one that
    // is gone (deleted, or the user's entry removed).
    if (list?.[0] && !list.some((env) => env._id === value)) onChange(list[0]._id)
  }, [list])
  useEffect(() => setTyped(value), [value])
  // Until the list is answered the current choice shows in a disabled list, so the control does not change kind.
  if (list || !error) {
    return (
      <label class="environment">
        Environment
        <select name="environment" value={value} disabled={!list} onChange={(e) => onChange(e.currentTarget.value)}>
          {!list?.some((env) => env._id === value) && <option value={value}>{value || 'choose…'}</option>}
          {list?.map((env) => (
            <option key={env._id} value={env._id}>
              {env.name && env.name !== env._id ? `${env.name} (${env._id})` : env._id}
            </option>
          ))}
        </select>
      </label>
    )
  }
  return (
    <form
      class="environment"
      onSubmit={(e) => {
        e.preventDefault()
        onChange(typed.trim())
      }}
    >
      <label>
        Environment
        <input name="environment" value={typed} required onInput={(e) => setTyped(e.currentTarget.value)} />
      </label>
      <button type="submit">Switch</button>
    </form>
  )
}

function View({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
  const [area, a, b, c] = parts
  if (area === 'definitions' && a && b === 'documents' && c) return <DocumentEditor dd={a} id={c} />
  if (area === 'definitions' && a && b === 'documents') return <Documents dd={a} />
  if (area === 'definitions' && a && b === 'runs') return <ActionRuns dd={a} />
  if (area === 'definitions' && a && b === 'transfer') return <Transfer dd={a} />
  if (area === 'definitions' && a) return <DefinitionEdit dd={a} />
  if (area === 'definitions') return <Definitions />
  if (area === 'users' && a) return <UserDetail userId={a} />
  if (area === 'users') return <Users />
  if (area === 'packages') return <Packages />
  if (area === 'account') return <Account />
  if (area === 'environments') return <Environments />
  if (!area) return <Home />
  return (
    <section>
      <Title text="Not found" />
      <p>
        Nothing at this address. <Link href="/">Home</Link>
      </p>
    </section>
  )
}

export function App() {
  const [current, setCurrent] = useState<Session | null>(session.get)
  const [expired, setExpired] = useState(false)
  const [env, setEnv] = useState(environment.get)
  const path = usePath()
  // The session is shared by the browser's tabs: a sign-in or sign-out in one is seen by all.
  useEffect(() => session.subscribe(setCurrent), [])
  useEffect(() => whenExpired(() => setExpired(true)), [])
  const role = useOwnRole(current?.userId, env)

  const signedIn = (value: Session) => {
    // Another account in the same tab must not see the previous one's page.
    if (current && current.userId !== value.userId) navigate('/')
    session.set(value)
    setExpired(false)
    setEnv(environment.get())
  }
  if (!current && !expired) return path === '/reset-password' ? <ResetPassword /> : <Login onSignedIn={signedIn} />
  const switchTo = (id: string) => {
    environment.set(id)
    setEnv(id)
  }
  const signOut = () => {
    const ending = session.get()
    session.set(null)
    navigate('/')
    // Ends the session on the server: its refresh token stops working.
    if (ending) {
      void ok(quire.POST('/auth/sessions/logout', { body: { refreshToken: ending.refreshToken } })).catch(() => {})
    }
  }
  const active = (prefix: string) => (path.startsWith(prefix) ? 'active' : '')
  return (
    <RoleContext.Provider value={role}>
      <div class="shell" inert={expired}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header>
          <Link href="/" class="brand">
            Quire
          </Link>
          <nav aria-label="Main">
            <Link href="/definitions" class={active('/definitions')}>
              Definitions
            </Link>
            <Link href="/users" class={active('/users')}>
              Users
            </Link>
            <Link href="/packages" class={active('/packages')}>
              Packages
            </Link>
            <Link href="/environments" class={active('/environments')}>
              Environments
            </Link>
            <Link href="/account" class={active('/account')}>
              Account
            </Link>
          </nav>
          <EnvironmentSwitcher value={env} onChange={switchTo} />
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </header>
        <main id="main" tabIndex={-1}>
          {env || path.startsWith('/environments') ? (
            <View key={env} path={path} />
          ) : (
            <p>Choose an environment to start.</p>
          )}
        </main>
      </div>
      {expired && <Login expired onSignedIn={signedIn} />}
    </RoleContext.Provider>
  )
}
