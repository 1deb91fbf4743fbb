import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.signIn()

const row = (username: string) => page.locator(`tr[data-username="${username}"]`)

t.test('list and create users; the active-users figure follows', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
  await row('admin').waitFor()
  await page.getByTestId('users-active').filter({ hasText: '1' }).waitFor()
  await page.getByLabel('Username').fill('rita')
  await page.getByLabel('Password').fill('rita-password-123')
  await page.getByLabel('Name', { exact: true }).fill('Rita')
  await page.getByLabel('Groups (comma-separated)').fill('editors, sales')
  await page.getByRole('button', { name: 'Create user' }).click()
  await row('rita').waitFor()
  t.match(await row('rita').textContent(), /Rita.*no.*yes.*editors, sales/)
  await page.getByTestId('users-active').filter({ hasText: '2' }).waitFor()
})

t.test('a taken username shows the API userDescription', async (t) => {
  await page.getByLabel('Username').fill('rita')
  await page.getByLabel('Password').fill('another-password-1')
  await page.getByRole('button', { name: 'Create user' }).click()
  await page.getByRole('alert').waitFor()
  t.notMatch(await page.getByRole('alert').textContent(), /HTTP/)
})

t.test('administrator flag and groups', async (t) => {
  await row('rita').getByRole('link').click()
  await page.getByRole('heading', { name: 'User rita' }).waitFor()
  await page.getByLabel('Administrator').check()
  await page.getByLabel('Groups (comma-separated)').fill('editors')
  await page.getByRole('button', { name: 'Save roles' }).click()
  await page.getByText('Roles saved.').waitFor()
  const [user] = await c.api<{ _id: string; profile: { environments: Record<string, unknown> } }[]>(
    'GET',
    '/api/v2/users?query=' + encodeURIComponent('{"username":"rita"}'),
  )
  t.match(user?.profile.environments.default, { administrator: true, groups: ['editors'] })
})

t.test('long-lived tokens: the secret is shown once, then revoked', async (t) => {
  await page.getByLabel('Token name').fill('ci')
  await page.getByRole('button', { name: 'Create token' }).click()
  const secret = await page.getByTestId('token-secret').textContent()
  t.match(secret, /^qlt_/)
  const works = await fetch(`${c.url}/api/v2/usage-statistics/active-users`, {
    headers: { authorization: `Bearer ${secret}`, 'environment-id': 'default' },
  })
  t.equal(works.status, 200)
  await page.getByRole('button', { name: 'Done' }).click()
  t.equal(await page.getByTestId('token-secret').count(), 0, 'never shown again')
  const token = page.locator('li[data-token="ci"]')
  await token.getByRole('button', { name: 'Revoke' }).click()
  await token.getByRole('button', { name: 'Yes' }).click()
  await token.waitFor({ state: 'detached' })
  const refused = await fetch(`${c.url}/api/v2/usage-statistics/active-users`, {
    headers: { authorization: `Bearer ${secret}`, 'environment-id': 'default' },
  })
  t.equal(refused.status, 401)
})

t.test('reset 2FA', async (t) => {
  await page.getByRole('button', { name: 'Reset 2FA' }).click()
  await page.getByRole('button', { name: 'Yes' }).click()
  await page.getByText('Two-factor authentication reset.').waitFor()
  t.pass('the API answered 200')
})

t.test('deactivate, then activate again', async (t) => {
  await page.getByRole('button', { name: 'Deactivate' }).click()
  await page.getByRole('button', { name: 'Yes' }).click()
  await page.getByText('Deactivated in default').waitFor()
  const refused = await fetch(`${c.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'rita', password: 'rita-password-123' }),
  })
  const token = ((await refused.json()) as { data?: { accessToken: string } }).data?.accessToken
  const use = await fetch(`${c.url}/api/v2/users`, {
    headers: { authorization: `Bearer ${token}`, 'environment-id': 'default' },
  })
  t.equal(use.status, 403, 'a deactivated user cannot use the environment')
  await page.getByRole('button', { name: 'Activate' }).click()
  await page.getByText('Active in default').waitFor()
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
