import { useEffect, useState } from 'preact/hooks'
import { ok, quire } from '../api.js'
import { Link } from '../router.js'
import { ErrorText, Notice, useAction } from '../ui.js'

/**
 * Forgotten password, signed out: ask for the mail, then set a new password with its token (`?token=` fills it,
 * so a link to this page can carry it).
 */
export function ResetPassword() {
  const [account, setAccount] = useState('')
  const [token, setToken] = useState(() => new URLSearchParams(location.search).get('token') ?? '')
  const [password, setPassword] = useState('')
  const [requested, setRequested] = useState(false)
  const [done, setDone] = useState(false)
  const action = useAction()
  useEffect(() => {
    document.title = 'Reset password · Quire'
  }, [])

  const request = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      // The answer is the same whether or not an account matched: nothing to tell apart here either.
      await ok(
        quire.POST('/auth/reset-password', {
          body: account.includes('@') ? { email: account } : { username: account },
        }),
      )
      setRequested(true)
    })
  }
  const confirm = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      await ok(quire.POST('/auth/reset-password/confirm', { body: { token: token.trim(), password } }))
      setDone(true)
    })
  }

  return (
    <main class="login">
      <h1>Reset your password</h1>
      {done ? (
        <Notice>
          Password changed. <Link href="/">Sign in</Link> with the new one.
        </Notice>
      ) : (
        <>
          <form onSubmit={request}>
            <label>
              Username or e-mail
              <input
                name="account"
                autocomplete="username"
                required
                value={account}
                onInput={(e) => setAccount(e.currentTarget.value)}
              />
            </label>
            <button type="submit" disabled={action.busy}>
              Mail me a reset token
            </button>
            {requested && <Notice>If an account matches, a mail with a reset token is on its way.</Notice>}
          </form>
          <form onSubmit={confirm}>
            <label>
              Reset token from the mail
              <input name="token" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
            </label>
            <label>
              New password
              <input
                name="password"
                type="password"
                autocomplete="new-password"
                required
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </label>
            <button type="submit" disabled={action.busy}>
              Set the new password
            </button>
          </form>
          <ErrorText error={action.error} />
          <p>
            <Link href="/">Back to sign-in</Link>
          </p>
        </>
      )}
    </main>
  )
}
