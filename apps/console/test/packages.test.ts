import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.signIn()

const market = (label: string) => page.locator(`ul.market > li[data-package="${label}"]`)
const installed = (label: string) => page.locator(`table.installations tr[data-package="${label}"]`)

t.test('create a package and publish versions on the marketplace', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Packages' }).click()
  await page.getByText('Nothing installed.').waitFor()
  await page.getByLabel('Name', { exact: true }).fill('crm')
  await page.getByLabel('Label', { exact: true }).fill('CRM')
  await page.getByLabel('Short description').fill('Contacts and deals')
  await page.getByRole('button', { name: 'Create package' }).click()
  await market('CRM').waitFor()
  for (const version of ['1.0.0', '1.1.0']) {
    await market('CRM').getByLabel('New version of CRM').fill(version)
    await market('CRM').getByRole('button', { name: 'Publish version' }).click()
    await market('CRM')
      .getByRole('button', { name: `Install ${version}` })
      .waitFor()
  }
  t.pass('published')
})

t.test('a bad version number shows the API userDescription', async (t) => {
  await market('CRM').getByLabel('New version of CRM').fill('v2')
  await market('CRM').getByRole('button', { name: 'Publish version' }).click()
  await page.getByRole('alert').waitFor()
  t.notMatch(await page.getByRole('alert').textContent(), /HTTP/)
})

t.test('install, upgrade, uninstall', async (t) => {
  // Each step waits for the row to show the installed version (the notice may come before the table's refresh).
  await market('CRM').getByRole('button', { name: 'Install 1.0.0' }).click()
  await installed('CRM')
    .filter({ hasText: /CRM1\.0\.01\.1\.0/ })
    .waitFor()
  t.match(await installed('CRM').textContent(), /CRM1\.0\.01\.1\.0/)
  await market('CRM').getByRole('button', { name: 'Install 1.1.0' }).click()
  await page.getByText('Installed CRM 1.1.0').waitFor()
  await installed('CRM')
    .filter({ hasText: /CRM1\.1\.01\.1\.0/ })
    .waitFor()
  t.match(await installed('CRM').textContent(), /CRM1\.1\.01\.1\.0/)
  await installed('CRM').getByRole('button', { name: 'Uninstall' }).click()
  await installed('CRM').getByRole('button', { name: 'Yes' }).click()
  await installed('CRM').waitFor({ state: 'detached' })
  t.same(await c.api('GET', '/api/v2/packages/installations'), [])
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
