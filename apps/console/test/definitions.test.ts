import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.signIn()

const row = (name: string) => page.locator(`tr[data-name="${name}"]`)

t.test('create a definition with typed fields', async (t) => {
  await page.getByRole('link', { name: 'Definitions', exact: true }).click()
  await page.getByLabel('Name', { exact: true }).fill('books')
  await page.getByLabel('Label').fill('Books')
  await page.getByText('Advanced: JSON').click()
  await page.getByLabel('Fields (JSON, optional)').fill('{"title": {"type": "string", "required": true}}')
  await page.getByRole('button', { name: 'Create definition' }).click()
  await row('books').waitFor()
  t.match(await row('books').textContent(), /title/)
})

t.test('a bad definition shows the API userDescription', async (t) => {
  await page.getByLabel('Name', { exact: true }).fill('books')
  await page.getByRole('button', { name: 'Create definition' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  t.notMatch(await alert.textContent(), /HTTP/)
})

t.test('edit fields and indexes', async (t) => {
  await row('books').getByRole('link', { name: 'Edit' }).click()
  await page.getByRole('heading', { name: 'Definition books' }).waitFor()
  await page.getByText('Advanced: JSON').click()
  await page.getByLabel(/^Fields/).fill('{"title": {"type": "string", "required": true}, "price": {"type": "number"}}')
  await page.getByLabel(/^Indexes/).fill('[{"fields": {"price": -1}}]')
  await page.getByRole('button', { name: 'Save definition' }).click()
  await page.getByText('Saved.').waitFor()
  await page.getByText('{"price":-1}').waitFor()
  const saved = await c.api<{ fields: Record<string, unknown>; indexes: { fields: unknown }[] }>(
    'GET',
    '/api/v2/document-definitions/books',
  )
  t.same(Object.keys(saved.fields), ['title', 'price'])
  t.same(saved.indexes[0]?.fields, { price: -1 })
})

t.test('copy a definition', async (t) => {
  await page.getByRole('link', { name: '← Definitions' }).click()
  await row('books').getByRole('button', { name: 'Copy' }).click()
  await row('books (copy)').waitFor()
  t.match(await row('books (copy)').textContent(), /price/)
})

t.test('delete: an empty one at once, one with documents after the force confirmation', async (t) => {
  await row('books (copy)').getByRole('button', { name: 'Delete' }).click()
  await row('books (copy)').getByRole('button', { name: 'Yes' }).click()
  await row('books (copy)').waitFor({ state: 'detached' })

  await c.api('POST', '/api/v2/document-definitions/books/documents/new', { title: 'Dune' })
  await row('books').getByRole('button', { name: 'Delete' }).click()
  await row('books').getByRole('button', { name: 'Yes' }).click()
  const warning = page.getByRole('alertdialog')
  await warning.waitFor()
  t.match(await warning.textContent(), /still holds documents/)
  await warning.getByRole('button', { name: 'Delete with its documents' }).click()
  await row('books').waitFor({ state: 'detached' })
  t.same(await c.api('GET', '/api/v2/document-definitions'), [])
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
