import { useState } from 'preact/hooks'
import { ApiError, call, type Session } from '../api.js'
import { ErrorText, useAction } from '../ui.js'

interface LoginAnswer {
  accessToken: string
  userId: string
}

/** Username and password; the code field appears when the API answers `two_factor_required`. */
export function Login({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [code, setCode] = useState('')
  const [needsCode, setNeedsCode] = useState(false)
  const action = useAction()

  const submit = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      try {
        const answer = await call<LoginAnswer>('POST', '/auth/login', {
          username,
          password,
          ...(needsCode ? { code } : {}),
        })
        onSignedIn({ token: answer.accessToken, userId: answer.userId })
      } catch (err) {
        if (err instanceof ApiError && err.code === 'two_factor_required' && !needsCode) {
          setNeedsCode(true)
          return
        }
        throw err
      }
    })
  }

  return (
    <main class="login">
      <h1>Quire console</h1>
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
    </main>
  )
}
