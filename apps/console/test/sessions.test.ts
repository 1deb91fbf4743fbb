import t from 'tap'
import { start, totp } from './helper.js'

const c = await start(t)
const { page } = c
const SESSION = 'quire.console.session'

interface Stored {
  token: string
  refreshToken: string
}
const stored = (on = page) =>
  on.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null') as Stored | null, SESSION)
const refresh = (refreshToken: string) =>
  fetch(`${c.url}/auth/sessions/refresh`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refreshToken }),
  })

t.test('assets go out compressed, hashed ones cached for good; /favicon.ico exists', async (t) => {
  const html = await (await fetch(`${c.url}/console/`)).text()
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1]
  t.ok(script, 'the page names its bundle')
  const br = await fetch(c.url + script, { headers: { 'accept-encoding': 'br' } })
  t.equal(br.status, 200)
  t.equal(br.headers.get('content-encoding'), 'br')
  t.equal(br.headers.get('cache-control'), 'public, max-age=31536000, immutable')
  t.match(br.headers.get('vary'), /accept-encoding/i)
  const gzip = await fetch(c.url + script, { headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers.get('content-encoding'), 'gzip')
  const page = await fetch(`${c.url}/console/`, { headers: { 'accept-encoding': 'br' } })
  t.equal(page.status, 200)
  t.equal(page.headers.get('cache-control'), 'no-cache', 'the page itself is revalidated')
  const icon = await fetch(`${c.url}/favicon.ico`)
  t.equal(icon.status, 200)
  t.match(icon.headers.get('content-type'), /^image\//)
})

t.test('one session for every tab; sign-out ends it on the server', async (t) => {
  const context = await c.browser.newContext({ baseURL: c.url })
  t.teardown(() => context.close())
  const [one, two] = [await context.newPage(), await context.newPage()]
  await c.signIn(one)
  const first = await stored(one)
  t.ok(first?.refreshToken, 'a renewable session is kept')
  await two.goto('/console/definitions')
  await two.getByRole('heading', { name: 'Definitions' }).waitFor()
  t.equal(await two.getByRole('button', { name: 'Sign in' }).count(), 0, 'a new tab is signed in')

  const loggedOut = two.waitForResponse('**/auth/sessions/logout')
  await two.getByRole('button', { name: 'Sign out' }).click()
  t.equal((await loggedOut).status(), 200)
  await two.getByRole('button', { name: 'Sign in' }).waitFor()
  await one.getByRole('button', { name: 'Sign in' }).waitFor()
  t.equal(await stored(one), null, 'the other tab is signed out too')
  t.equal((await refresh(first!.refreshToken)).status, 401, 'the session ended on the server')
})

t.test('an expired access token is renewed without a word', async (t) => {
  await c.signIn()
  const before = await stored()
  // What an hour-old token meets: the API refuses it with 401.
  await page.evaluate(
    ([key, value]) => localStorage.setItem(key!, value!),
    [SESSION, JSON.stringify({ ...before, token: 'expired.expired.expired', expiresAt: Date.now() + 3_600_000 })],
  )
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Definitions' }).click()
  await page.getByRole('heading', { name: 'Definitions' }).waitFor()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  // The heading may show before the page's first call met the 401 and renewed the session.
  await page.waitForFunction((key) => !localStorage.getItem(key)?.includes('expired.expired'), SESSION)
  const after = await stored()
  t.not(after?.token, 'expired.expired.expired', 'a new access token')
  t.not(after?.refreshToken, before?.refreshToken, 'the refresh token rotated')
  t.equal(await page.getByRole('alert').count(), 0, 'no error shown')
})

t.test('a session ended elsewhere asks to sign in again in place, keeping the edit', async (t) => {
  await c.api('POST', '/api/v2/document-definitions', { name: 'notes', fields: { text: { type: 'string' } } })
  await c.api('POST', '/api/v2/users', { username: 'nina', password: 'nina-password-1', administrator: true })
  await page.getByRole('button', { name: 'Sign out' }).click()
  await c.signIn(page, 'nina', 'nina-password-1')
  await page.goto('/console/definitions/notes/documents/new')
  const editor = page.getByLabel('Fields (JSON)')
  await editor.fill('{"text": "typed before the session ended"}')

  const { token } = (await stored())!
  const out = await fetch(`${c.url}/auth/sign-out-everywhere`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  })
  t.equal(out.status, 200)
  const dialog = page.getByRole('dialog', { name: 'Your session ended' })
  // The first call to find the session ended is this click's, or one the page makes on its own (the list of
  // environments): either opens the dialog, which then makes the button inert.
  const click = page.getByRole('button', { name: 'Create document' }).click()
  await Promise.race([dialog.waitFor(), click.catch(() => dialog.waitFor())])
  await dialog.waitFor()
  t.equal(await editor.inputValue(), '{"text": "typed before the session ended"}', 'the edit is kept')
  await dialog.getByLabel('Username').fill('nina')
  await dialog.getByLabel('Password').fill('nina-password-1')
  await dialog.getByRole('button', { name: 'Sign in' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Create document' }).click()
  await page.getByRole('button', { name: 'Save document' }).waitFor()
  const [note] = await c.api<{ text: string }[]>('GET', '/api/v2/document-definitions/notes/documents')
  t.equal(note?.text, 'typed before the session ended')
})

t.test('own account: a short new password shows why; sign out everywhere', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
  await page.getByTestId('signed-in-as').filter({ hasText: 'nina' }).waitFor()
  await page.getByLabel('Current password').fill('nina-password-1')
  await page.getByLabel('New password').fill('short')
  await page.getByRole('button', { name: 'Change password' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  t.match(await alert.textContent(), /newPassword.*8/, 'the reason names the field and the rule')

  await page.getByLabel('New password').fill('nina-password-2')
  await page.getByRole('button', { name: 'Change password' }).click()
  await page.getByText('Password changed.').waitFor()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Definitions' }).click()
  await page.getByRole('heading', { name: 'Definitions' }).waitFor()
  t.equal(await page.getByRole('dialog').count(), 0, 'still signed in after the change')

  const { refreshToken } = (await stored())!
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
  await page.getByRole('button', { name: 'Sign out everywhere' }).click()
  await page.getByRole('button', { name: 'Yes' }).click()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  t.equal((await refresh(refreshToken)).status, 401, 'the session ended on the server')
})

t.test('own account: turn on two-factor authentication, see the recovery codes once', async (t) => {
  await c.signIn(page, 'nina', 'nina-password-2')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? ''
  await page.getByLabel('Code from the app').fill('000000')
  await page.getByLabel('Your password').fill('nina-password-2')
  await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
  await page.getByRole('alert').waitFor()
  t.equal(await page.getByTestId('recovery-codes').count(), 0, 'a wrong code turns nothing on')
  await page.getByLabel('Code from the app').fill(totp(secret))
  await page.getByRole('button', { name: 'Turn on two-factor authentication' }).click()
  await page.getByTestId('recovery-codes').waitFor()
  t.ok((await page.getByTestId('recovery-codes').locator('li').count()) > 0, 'recovery codes shown')
  const login = await fetch(`${c.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'nina', password: 'nina-password-2' }),
  })
  t.equal(((await login.json()) as { error?: string }).error, 'two_factor_required', 'a sign-in now asks for a code')
})

t.test('a forgotten password: ask for the mail, then a token that does not work says so', async (t) => {
  const context = await c.browser.newContext({ baseURL: c.url })
  t.teardown(() => context.close())
  const other = await context.newPage()
  await other.goto('/console/')
  await other.getByRole('link', { name: 'Forgot your password?' }).click()
  await other.getByRole('heading', { name: 'Reset your password' }).waitFor()
  t.equal(await other.title(), 'Reset password · Quire')
  await other.getByLabel('Username or e-mail').fill('nina')
  await other.getByRole('button', { name: 'Mail me a reset token' }).click()
  await other.getByText('If an account matches').waitFor()
  await other.goto(`/console/reset-password?token=${'x'.repeat(32)}`)
  t.equal(await other.getByLabel('Reset token from the mail').inputValue(), 'x'.repeat(32), 'the link fills the token')
  await other.getByLabel('New password').fill('nina-password-3')
  await other.getByRole('button', { name: 'Set the new password' }).click()
  await other.getByRole('alert').waitFor()
  t.match(await other.getByRole('alert').textContent(), /no longer works/)
})

t.test('no Content-Security-Policy violation on any page', async (t) => {
  t.same(c.cspViolations, [])
})
