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
