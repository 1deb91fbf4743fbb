import { useEffect, useState } from 'preact/hooks'
import { dataOf, ok, quire, session, toSession, type Data } from '../api.js'
import { navigate } from '../router.js'
import { ConfirmButton, ErrorText, Notice, Title, useAction, useLoad } from '../ui.js'
import type { QrShape } from './qr.js'

/** Quiet zone around the code, in modules: the 4 the QR standard asks for, so every scanner finds it. */
const QUIET = 4

/** The enrolment link as a QR code for the authenticator app's camera; the generator loads only now. */
function QrCode({ text }: { text: string }) {
  const [shape, setShape] = useState<QrShape | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let live = true
    import('./qr.js').then(
      ({ qrShape }) => live && setShape(qrShape(text)),
      () => live && setFailed(true),
    )
    return () => {
      live = false
    }
  }, [text])
  if (failed) return <p class="hint">The QR code could not be drawn: type the key below instead.</p>
  if (!shape) return <p class="hint">Drawing the QR code…</p>
  const side = shape.size + 2 * QUIET
  return (
    <svg
      class="qr"
      role="img"
      aria-label="QR code to scan with your authenticator app"
      viewBox={`${-QUIET} ${-QUIET} ${side} ${side}`}
      width={side * 5}
      height={side * 5}
      shape-rendering="crispEdges"
    >
      <rect x={-QUIET} y={-QUIET} width={side} height={side} fill="#fff" />
      <path d={shape.path} fill="#000" />
    </svg>
  )
}

/** The recovery codes, shown once: copied or saved to a file before they go. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState('')
  const text = `Quire recovery codes (each signs in once)\n${codes.join('\n')}\n`
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setCopied('Copied to the clipboard.'),
      () => setCopied('The browser refused the clipboard: download them or write them down.'),
    )
  }
  const download = () => {
    const href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }))
    const link = document.createElement('a')
    link.href = href
    link.download = 'quire-recovery-codes.txt'
    link.click()
    setTimeout(() => URL.revokeObjectURL(href), 10_000)
  }
  return (
    <div class="secret" role="status">
      <p>
        Two-factor authentication is on. Keep these recovery codes somewhere safe: each signs in once without the app,
        and they are shown only now.
      </p>
      <ul data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy the codes
        </button>
        <button type="button" onClick={download}>
          Download the codes
        </button>
        <button type="button" onClick={onDone}>
          I have kept them
        </button>
      </div>
      {copied && <p>{copied}</p>}
    </div>
  )
}

/** The signed-in user's own account: who, a new password, and ending every session at once. */
export function Account() {
  const userId = session.get()?.userId ?? ''
  const own = useLoad(
    () => dataOf(quire.GET('/api/v2/users/{userId}', { params: { path: { userId } } })).then(([user]) => user),
    [userId],
  )
  const action = useAction()
  const [notice, setNotice] = useState('')
  const [form, setForm] = useState({ password: '', newPassword: '' })
  const [setup, setSetup] = useState<Data<'setupTwoFactor'> | null>(null)
  const [enrol, setEnrol] = useState({ code: '', password: '' })
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null)
  const username = own.value?.username ?? userId

  const changePassword = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      setNotice('')
      const changed = await dataOf(quire.POST('/auth/password', { body: form }))
      // The change ends every session, this one's renewals included: open a new one with the new password.
      const reopened = await dataOf(
        quire.POST('/auth/sessions', { body: { username, password: form.newPassword } }),
      ).catch(() => ({ ...changed, refreshToken: '' }))
      session.set(toSession(reopened))
      setForm({ password: '', newPassword: '' })
      setNotice('Password changed. Your other sessions and long-lived tokens were ended.')
    })
  }
  const startTwoFactor = () =>
    action.run(async () => {
      setRecoveryCodes(null)
      setSetup(await dataOf(quire.POST('/auth/2fa/setup')))
    })
  const enableTwoFactor = (event: Event) => {
    event.preventDefault()
    action.run(async () => {
      const enabled = await dataOf(quire.POST('/auth/2fa/enable', { body: enrol }))
      setSetup(null)
      setEnrol({ code: '', password: '' })
      setRecoveryCodes(enabled.recoveryCodes)
    })
  }
  const signOutEverywhere = () =>
    action.run(async () => {
      await ok(quire.POST('/auth/sign-out-everywhere'))
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
        {recoveryCodes?.length === 0 ? (
          <p>Two-factor authentication is on.</p>
        ) : recoveryCodes ? (
          // Kept: the codes leave the page for good.
          <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes([])} />
        ) : setup ? (
          <form onSubmit={enableTwoFactor}>
            <p>
              Scan this code with your authenticator app (or type the key below, or open the link on the phone that has
              it), then enter the code it shows.
            </p>
            <QrCode text={setup.uri} />
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
