import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.api('POST', '/api/v2/document-definitions', {
  name: 'books',
  fields: { title: { type: 'string', required: true }, price: { type: 'number' }, files: { type: 'attachment' } },
})
const titles = ['Dune', 'Emma', 'Ulysses', 'Beloved', 'Middlemarch', 'Walden', 'Kindred', 'Rebecca', 'Persuasion']
for (const [i, title] of titles.entries()) {
  await c.api('POST', '/api/v2/document-definitions/books/documents/new', {
    title,
    price: 5 + i * 3,
    genre: i % 2 ? 'classic' : 'modern',
    externalId: `book-${i}`,
  })
}
await c.signIn()

const table = page.locator('table.documents')
const bodyRows = table.locator('tbody tr')

t.test('the table pages with pagination.next', async (t) => {
  await page.goto('/console/definitions/books/documents')
  await page.getByLabel('Per page').fill('4')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByText('Page 1 · 4 shown').waitFor()
  t.equal(await bodyRows.count(), 4)
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.getByText('Page 2 · 4 shown').waitFor()
  await page.getByRole('button', { name: 'Next page' }).click()
  await page.getByText('Page 3 · 1 shown').waitFor()
  t.equal(await page.getByTestId('total').textContent(), '9 documents', 'the total stays on later pages')
  t.ok(await page.getByRole('button', { name: 'Next page' }).isDisabled(), 'no next page after the last')
  await page.getByRole('button', { name: 'Previous page' }).click()
  await page.getByText('Page 2 · 4 shown').waitFor()
})

t.test('query, sort and fields are the API parameters', async (t) => {
  await page.getByLabel('Query (JSON)').fill('{"genre": "classic"}')
  await page.getByLabel('Sort (JSON)').fill('{"price": -1}')
  await page.getByLabel('Fields (JSON)').fill('{"title": 1, "price": 1}')
  await page.getByLabel('Per page').fill('20')
  const answer = page.waitForResponse((res) => res.url().includes('/documents?'))
  await page.getByRole('button', { name: 'Apply' }).click()
  const url = new URL((await answer).url())
  t.equal(url.searchParams.get('query'), '{"genre":"classic"}')
  t.equal(url.searchParams.get('sort'), '{"price":-1}')
  await page.getByText('Page 1 · 4 shown').waitFor()
  t.equal(url.searchParams.get('count'), 'true', 'the total is asked for')
  t.equal(await page.getByTestId('total').textContent(), '4 documents', 'the total of the filtered list')
  const headers = await table.locator('thead th').allTextContents()
  t.notOk(headers.includes('genre'), 'fields left genre out')
  const texts = await bodyRows.allTextContents()
  t.match(texts[0], /Rebecca/)
  t.match(texts[3], /Emma/)
})

t.test('a bad query shows the API userDescription', async (t) => {
  await page.getByLabel('Query (JSON)').fill('{"$where": "1"}')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByRole('alert').waitFor()
  t.notMatch(await page.getByRole('alert').textContent(), /HTTP/)
  await page.getByLabel('Query (JSON)').fill('')
  await page.getByLabel('Sort (JSON)').fill('{"price": 1}')
  await page.getByLabel('Fields (JSON)').fill('')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByText('Page 1 · 9 shown').waitFor()
})

t.test('screenshot of the documents table (README)', async (t) => {
  const target = process.env.QUIRE_CONSOLE_SCREENSHOT
  if (!target) return t.pass('set QUIRE_CONSOLE_SCREENSHOT=<png path> to refresh docs/console-documents.png')
  mkdirSync(fileURLToPath(new URL('.', `file://${target}`)), { recursive: true })
  await page.screenshot({ path: target })
  t.pass('written')
})

t.test('create a document: validation errors beside the field, then externalId', async (t) => {
  await page.getByRole('button', { name: 'New document' }).click()
  await page.getByRole('heading', { name: 'New document in books' }).waitFor()
  await page.getByLabel('Fields (JSON)').fill('{"title": "Lolita", "price": "cheap"}')
  await page.getByRole('button', { name: 'Create document' }).click()
  const beside = page.locator('li[data-field="price"] .field-error')
  await beside.waitFor()
  t.match(await beside.textContent(), /number/i)
  await page.getByLabel('Fields (JSON)').fill('{"title": "Lolita", "price": 12}')
  await page.getByLabel('externalId').fill('book-1')
  await page.getByRole('button', { name: 'Create document' }).click()
  await page.locator('#error-externalId').waitFor()
  t.equal(await page.getByLabel('externalId').getAttribute('aria-invalid'), 'true')
  await page.getByLabel('externalId').fill('lolita')
  await page.getByRole('button', { name: 'Create document' }).click()
  await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor()
  const stored = await c.api<unknown>('GET', '/api/v2/document-definitions/books/documents/lolita')
  t.match(stored, { title: 'Lolita', price: 12, externalId: 'lolita' })
})

t.test('edit and save a document', async (t) => {
  await page.getByLabel('Fields (JSON)').fill('{"title": "Lolita", "price": 14, "status": "ready"}')
  await page.getByRole('button', { name: 'Save document' }).click()
  await page.getByText('Saved.').waitFor()
  const stored = await c.api<{ price: number }>('GET', '/api/v2/document-definitions/books/documents/lolita')
  t.equal(stored.price, 14)
})

t.test('delete a document', async (t) => {
  await page.getByRole('button', { name: 'Delete document' }).click()
  await page.getByRole('button', { name: 'Yes' }).click()
  await page.getByRole('heading', { name: 'Documents of books' }).waitFor()
  await page.getByText('Page 1 · 9 shown').waitFor()
  t.equal(await page.getByText('Lolita').count(), 0)
})

t.test('readable on a phone: nothing wider than the screen but the table, which scrolls', async (t) => {
  const phone = await c.browser.newPage({ viewport: { width: 390, height: 844 }, baseURL: c.url })
  t.teardown(() => phone.close())
  await c.signIn(phone)
  await phone.goto('/console/definitions/books/documents')
  await phone.getByText('Page 1 · 9 shown').waitFor()
  const widths = await phone.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: innerWidth }))
  t.ok(widths.page <= widths.screen, `page ${widths.page}px within ${widths.screen}px`)
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
