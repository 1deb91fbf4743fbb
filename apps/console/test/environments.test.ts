import t from 'tap'
import { start } from './helper.js'

interface Environment {
  _id: string
  name: string
  active: boolean
}

const c = await start(t)
const { page } = c
// An environment administrator, not a super-administrator: environments are not theirs to manage.
await c.api('POST', '/api/v2/users', { username: 'ada', password: 'ada-password-1', administrator: true })
await c.signIn()

const nav = page.getByRole('navigation', { name: 'Main' })
const row = (id: string) => page.locator(`tr[data-environment="${id}"]`)
const environments = () => c.api<Environment[]>('GET', '/api/v2/environments')

t.test('a super-administrator creates an environment, and the switcher offers it', async (t) => {
  await nav.getByRole('link', { name: 'Environments' }).click()
  await page.getByRole('heading', { name: 'Environments' }).waitFor()
  t.equal(await page.title(), 'Environments · Quire')
  await row('default').waitFor()
  await page.getByLabel('Id').fill('staging')
  await page.getByLabel('Name', { exact: true }).fill('Staging')
  await page.getByRole('button', { name: 'Create environment' }).click()
  await row('staging').waitFor()
  t.match(await row('staging').textContent(), /Staging.*active/)
  await page.locator('select[name="environment"] option[value="staging"]').waitFor({ state: 'attached' })
  t.match(await environments(), [{ _id: 'default' }, { _id: 'staging', name: 'Staging', active: true }])
})

t.test('a taken id is refused with the API reason', async (t) => {
  await page.getByLabel('Id').fill('staging')
  await page.getByLabel('Name', { exact: true }).fill('Again')
  await page.getByRole('button', { name: 'Create environment' }).click()
  const alert = page.locator('form.panel').getByRole('alert')
  await alert.waitFor()
  t.notMatch(await alert.textContent(), /HTTP/)
  t.equal((await environments()).length, 2, 'nothing created')
})

t.test('rename', async (t) => {
  await row('staging').getByRole('button', { name: 'Rename' }).click()
  await page.getByLabel('New name of staging').fill('Staging two')
  await page.getByRole('button', { name: 'Save name' }).click()
  await page.getByText('Environment staging renamed to Staging two.').waitFor()
  // The list is read again after the message: its row shows the new name once it is.
  await row('staging').getByText('Staging two').waitFor()
  t.match(await row('staging').textContent(), /Staging two/)
  t.equal((await environments()).find((env) => env._id === 'staging')?.name, 'Staging two')
})

t.test('deactivate after a question naming the environment, then reactivate', async (t) => {
  await row('staging').getByRole('button', { name: 'Deactivate' }).click()
  t.match(await row('staging').getByRole('group').textContent(), /Deactivate Staging two \(staging\)\?/)
  await row('staging').getByRole('button', { name: 'Yes' }).click()
  await page.getByText('Environment staging deactivated.').waitFor()
  // The list is read again after the message: the row's state cell says so once it is (a wait that fails if never).
  await row('staging').getByRole('cell', { name: 'deactivated', exact: true }).waitFor()
  t.equal((await environments()).find((env) => env._id === 'staging')?.active, false)
  await row('staging').getByRole('button', { name: 'Reactivate' }).click()
  await page.getByText('Environment staging reactivated.').waitFor()
  // The row is drawn again from the reloaded list: its buttons move, so the next click waits for it.
  await row('staging').getByRole('button', { name: 'Deactivate' }).waitFor()
  t.equal((await environments()).find((env) => env._id === 'staging')?.active, true)
})

t.test('delete after a question naming the environment', async (t) => {
  await row('staging').getByRole('button', { name: 'Delete' }).click()
  t.match(await row('staging').getByRole('group').textContent(), /Delete Staging two \(staging\)\?/)
  await row('staging').getByRole('button', { name: 'No' }).click()
  t.equal((await environments()).length, 2, '"No" deletes nothing')
  await row('staging').getByRole('button', { name: 'Delete' }).click()
  await row('staging').getByRole('button', { name: 'Yes' }).click()
  await row('staging').waitFor({ state: 'detached' })
  t.same(
    (await environments()).map((env) => env._id),
    ['default'],
  )
})

t.test('an environment with users: refused first, then deleted with their access', async (t) => {
  await c.api('POST', '/api/v2/environments', { _id: 'archive', name: 'Archive' })
  await c.api(
    'POST',
    '/api/v2/users',
    { username: 'arch', password: 'arch-password-1' },
    { 'environment-id': 'archive' },
  )
  await page.reload()
  await row('archive').getByRole('button', { name: 'Delete' }).click()
  await row('archive').getByRole('button', { name: 'Yes' }).click()
  await row('archive').getByRole('alert').waitFor()
  t.ok(
    (await environments()).some((env) => env._id === 'archive'),
    'still there',
  )
  await row('archive').getByRole('button', { name: "Delete with its users' access" }).click()
  t.match(await row('archive').getByRole('group').textContent(), /Archive \(archive\) and remove every user's access/)
  await row('archive').getByRole('button', { name: 'Yes' }).click()
  await row('archive').waitFor({ state: 'detached' })
  t.notOk((await environments()).some((env) => env._id === 'archive'))
})

t.test('an environment administrator sees the list, no controls', async (t) => {
  const context = await c.browser.newContext({ baseURL: c.url })
  t.teardown(() => context.close())
  const other = await context.newPage()
  await c.signIn(other, 'ada', 'ada-password-1')
  await other.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Environments' }).click()
  await other.locator('tr[data-environment="default"]').waitFor()
  t.equal(await other.locator('tr[data-environment]').count(), 1, 'only the environments ada can enter')
  t.equal(await other.getByRole('button', { name: 'Create environment' }).count(), 0, 'no create form')
  for (const name of ['Rename', 'Deactivate', 'Delete']) {
    t.equal(await other.getByRole('button', { name }).count(), 0, `no ${name}`)
  }
  t.equal(await other.getByRole('columnheader', { name: 'Manage' }).count(), 0)
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
