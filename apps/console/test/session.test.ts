import t from 'tap'
import { start, totp } from './helper.js'

const c = await start(t)
const { page } = c

t.test('the gateway serves the console under a strict CSP, and the API keeps its own headers', async (t) => {
  for (const path of ['/console', '/console/', '/console/definitions/books/documents']) {
    const res = await fetch(c.url + path)
    t.equal(res.status, 200, path)
    t.match(res.headers.get('content-type'), /text\/html/, path)
    t.match(res.headers.get('content-security-policy'), /default-src 'self'/, path)
  }
  const missing = await fetch(`${c.url}/console/assets/missing.js`)
  t.equal(missing.status, 404, 'a missing asset is not answered with the page')
  const health = await fetch(`${c.url}/health`)
  t.equal(health.headers.get('content-security-policy'), null, 'API answers carry no console CSP')
})

t.test('a wrong password shows the API userDescription', async (t) => {
  await page.goto('/console/')
  await page.getByLabel('Username').fill('admin')
  await page.getByLabel('Password').fill('not the password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  t.match(await alert.textContent(), /\w+/)
  t.notMatch(await alert.textContent(), /HTTP 401/)
})

t.test('sign in with the keyboard only, see the active-users figure, sign out', async (t) => {
  await page.goto('/console/')
  await page.getByLabel('Username').focus()
  await page.keyboard.type('admin')
  await page.keyboard.press('Tab')
  await page.keyboard.type('console-test-password-1')
  await page.keyboard.press('Enter')
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
  await page.getByTestId('active-users').filter({ hasText: /^\d+$/ }).waitFor()
  t.equal(await page.getByTestId('active-users').textContent(), '1')
  // Focus is visible: the focused link gets an outline.
  await page.keyboard.press('Tab')
  await page.keyboard.press('Tab')
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)
  t.equal(outline, 'solid', 'the focused element shows an outline')
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  t.equal(await page.evaluate(() => sessionStorage.length), 0, 'the token is gone')
})

t.test('the environment switcher lists environments for a super-administrator and remembers the choice', async (t) => {
  await c.api('POST', '/api/v2/environments', { _id: 'staging', name: 'Staging' })
  await c.signIn()
  const select = page.getByLabel('Environment')
  await select.locator('option[value="staging"]').waitFor({ state: 'attached' })
  t.equal(await select.inputValue(), 'default')
  await select.selectOption('staging')
  await page.getByRole('heading', { name: 'Environment staging' }).waitFor()
  t.equal(await page.evaluate(() => localStorage.getItem('quire.console.environment')), 'staging')
  await page.reload()
  await page.getByRole('heading', { name: 'Environment staging' }).waitFor()
  await select.selectOption('default')
  await page.getByRole('heading', { name: 'Environment default' }).waitFor()
  await page.getByRole('button', { name: 'Sign out' }).click()
})

t.test('a user with 2FA signs in with a code; the environment list is theirs, or typed', async (t) => {
  await c.api('POST', '/api/v2/users', { username: 'tess', password: 'tess-password-123', administrator: true })
  const login = await fetch(`${c.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'tess', password: 'tess-password-123' }),
  })
  const token = ((await login.json()) as { data: { accessToken: string } }).data.accessToken
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const setup = await fetch(`${c.url}/auth/2fa/setup`, { method: 'POST', headers: auth, body: '{}' })
  const { secret } = ((await setup.json()) as { data: { secret: string } }).data
  const enable = await fetch(`${c.url}/auth/2fa/enable`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ code: totp(secret), password: 'tess-password-123' }),
  })
  t.equal(enable.status, 200)
  // The TOTP code was just spent on enabling (no replay): sign in with a recovery code, which the field also takes.
  const { recoveryCodes } = ((await enable.json()) as { data: { recoveryCodes: string[] } }).data

  const context = await c.browser.newContext({ baseURL: c.url })
  t.teardown(() => context.close())
  const other = await context.newPage()
  t.teardown(async () => {
    if (!t.passing()) await other.screenshot({ path: 'test-results/session--two-factor-user.png' })
  })
  await other.goto('/console/')
  await other.getByLabel('Username').fill('tess')
  await other.getByLabel('Password').fill('tess-password-123')
  await other.getByRole('button', { name: 'Sign in' }).click()
  const code = other.getByLabel('Two-factor code')
  await code.waitFor()
  t.ok(await code.evaluate((el) => el === document.activeElement), 'the code field takes the focus')
  await code.fill(recoveryCodes[0]!)
  await other.getByRole('button', { name: 'Sign in' }).click()
  await other.getByRole('button', { name: 'Sign out' }).waitFor()
  // Not a super-administrator: the API lists only the environments this user belongs to.
  const select = other.getByLabel('Environment')
  await other.getByRole('heading', { name: 'Environment default' }).waitFor()
  t.same(await select.locator('option').allTextContents(), ['default'])
  await other.getByRole('button', { name: 'Sign out' }).click()

  // Where the API gives no list, the environment is typed (and remembered).
  await other.route('**/api/v2/environments', (route) =>
    route.fulfill({ status: 403, json: { status: 'error', error: 'forbidden', userDescription: 'No access' } }),
  )
  await other.evaluate(() => localStorage.clear())
  await other.getByLabel('Username').fill('tess')
  await other.getByLabel('Password').fill('tess-password-123')
  await other.getByRole('button', { name: 'Sign in' }).click()
  await other.getByLabel('Two-factor code').fill(recoveryCodes[1]!)
  await other.getByRole('button', { name: 'Sign in' }).click()
  const field = other.getByRole('textbox', { name: 'Environment' })
  await field.fill('default')
  await other.getByRole('button', { name: 'Switch' }).click()
  await other.getByRole('heading', { name: 'Environment default' }).waitFor()
  t.equal(await other.evaluate(() => localStorage.getItem('quire.console.environment')), 'default')
})

t.test('no Content-Security-Policy violation on any page', async (t) => {
  t.same(c.cspViolations, [])
})
