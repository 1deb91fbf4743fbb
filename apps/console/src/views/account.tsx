import { useState } from 'preact/hooks'
import { call, q, session, toSession, type SessionAnswer } from '../api.js'
import { navigate } from '../router.js'
import { ConfirmButton, ErrorText, Notice, Title, useAction, useLoad } from '../ui.js'

interface Own {
  username?: string
}

/** The signed-in user's own account: who, a new password, and ending every session at once. */
export function Account() {
  const userId = session.get()?.userId ?? ''
  const own = useLoad(() => call<Own[]>('GET', `/api/v2/users/${q(userId)}`).then(([user]) => user), [userId])
  const action = useAction()
  const [notice, setNotice] = useState('')
  const [form, setForm] = useState({ password: '', newPassword: '' })
  const [setup, setSetup] = useState<{ secret: string; uri: string } | null>(null)
  const [enrol, setEnrol] = useState({ code: '', password: '' })
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null)
  const username = own.value?.username ?? userId

  const changePassword = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      setNotice('')
      const changed = await call<SessionAnswer>('POST', '/auth/password', form)
      // The change ends every session, this one's renewals included: open a new one with the new password.
      const reopened = await call<SessionAnswer>('POST', '/auth/sessions', {
        username,
        password: form.newPassword,
      }).catch(() => ({ ...changed, refreshToken: '' }))
      session.set(toSession(reopened))
      setForm({ password: '', newPassword: '' })
      setNotice('Password changed. Your other sessions and long-lived tokens were ended.')
    })
  }
  const startTwoFactor = () =>
    action.run(async () => {
      setRecoveryCodes(null)
      setSetup(await call<{ secret: string; uri: string }>('POST', '/auth/2fa/setup'))
    })
  const enableTwoFactor = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      const enabled = await call<{ recoveryCodes: string[] }>('POST', '/auth/2fa/enable', enrol)
      setSetup(null)
      setEnrol({ code: '', password: '' })
      setRecoveryCodes(enabled.recoveryCodes)
    })
  }
  const signOutEverywhere = () =>
    action.run(async () => {
      await call('POST', '/auth/sign-out-everywhere')
      session.set(null)
      navigate('/')
    })

  return (
    <section>
      <Title text="Your account" />
      <p>
        Signed in as <strong data-testid="signed-in-as">{username}</strong>
      </p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorText error={action.error ?? own.error} />
      <form class="panel" onSubmit={changePassword}>
        <h2>Change password</h2>
        <label>
          Current password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            required
            value={form.password}
            onInput={(e) => setForm({ ...form, password: e.currentTarget.value })}
          />
        </label>
        <label>
          New password
          <input
            type="password"
            name="newPassword"
            autocomplete="new-password"
            required
            value={form.newPassword}
            onInput={(e) => setForm({ ...form, newPassword: e.currentTarget.value })}
          />
        </label>
        <button type="submit" disabled={action.busy}>
          Change password
        </button>
      </form>
      <section class="panel" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">Two-factor authentication</h2>
        {recoveryCodes ? (
          <div class="secret" role="status">
            <p>
              Two-factor authentication is on. Keep these recovery codes somewhere safe: each signs in once without the
              app, and they are shown only now.
            </p>
            <ul data-testid="recovery-codes">
              {recoveryCodes.map((code) => (
                <li key={code}>
                  <code>{code}</code>
                </li>
              ))}
            </ul>
          </div>
        ) : setup ? (
          <form onSubmit={enableTwoFactor}>
            <p>
              Add this key to your authenticator app (or open the link on the phone that has it), then enter the code it
              shows.
            </p>
            <p>
              Key: <code data-testid="totp-secret">{setup.secret}</code> ·{' '}
              <a href={setup.uri}>open in the authenticator app</a>
            </p>
            <label>
              Code from the app
              <input
                inputMode="numeric"
                autocomplete="one-time-code"
                required
                value={enrol.code}
                onInput={(e) => setEnrol({ ...enrol, code: e.currentTarget.value })}
              />
            </label>
            <label>
              Your password
              <input
                type="password"
                autocomplete="current-password"
                required
                value={enrol.password}
                onInput={(e) => setEnrol({ ...enrol, password: e.currentTarget.value })}
              />
            </label>
            <button type="submit" disabled={action.busy}>
              Turn on two-factor authentication
            </button>
          </form>
        ) : (
          <button type="button" onClick={startTwoFactor}>
            Set up two-factor authentication
          </button>
        )}
      </section>
      <div class="panel">
        <h2>Sessions</h2>
        <p>Signing out everywhere ends this browser's session and every other one at once.</p>
        <ConfirmButton
          label="Sign out everywhere"
          question="End every session of your account, this one included?"
          danger
          onConfirm={signOutEverywhere}
        />
      </div>
    </section>
  )
}
