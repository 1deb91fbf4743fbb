import { useEffect, useState } from 'preact/hooks'
import { ApiError, dataOf, quire, toSession, type Session } from '../api.js'
import { Link } from '../router.js'
import { ErrorText, useAction } from '../ui.js'

/**
 * Username and password; the code field appears when the API answers `two_factor_required`. Opens a renewable
 * session. `expired`: shown over the page whose session ended, which stays as it was underneath.
 */
export function Login({ onSignedIn, expired }: { onSignedIn: (session: Session) => void; expired?: boolean }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [needsCode, setNeedsCode] = useState(false)
  const action = useAction()
  useEffect(() => {
    if (!expired) document.title = 'Sign in · Quire'
  }, [expired])

  const submit = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      try {
        const answer = await dataOf(
          quire.POST('/auth/sessions', { body: { username, password, ...(needsCode ? { code } : {}) } }),
        )
        onSignedIn(toSession(answer))
      } catch (err) {
        if (err instanceof ApiError && err.code === 'two_factor_required' && !needsCode) {
          setNeedsCode(true)
          return
        }
        throw err
      }
    })
  }

  const form = (
    <form onSubmit={submit}>
      <label>
        Username
        <input
          name="username"
          autocomplete="username"
          required
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
        />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
      </label>
      {needsCode && (
        <label>
          Two-factor code
          <input
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            required
            ref={(el) => el?.focus()}
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <small>From your authenticator app, or a recovery code.</small>
        </label>
      )}
      <ErrorText error={action.error} />
      <button type="submit" disabled={action.busy}>
        Sign in
      </button>
    </form>
  )
  if (expired) {
    return (
      <div class="overlay">
        <section role="dialog" aria-modal="true" aria-labelledby="expired-title" class="login">
          <h2 id="expired-title">Your session ended</h2>
          <p>Sign in again to go on: what you were editing is still here.</p>
          {form}
        </section>
      </div>
    )
  }
  return (
    <main class="login">
      <h1>Quire console</h1>
      {form}
      <p>
        <Link href="/reset-password">Forgot your password?</Link>
      </p>
    </main>
  )
}
