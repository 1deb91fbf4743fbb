import t from 'tap'
import { start } from './helper.js'

/** A new user's first task without the docs: a definition from the type picker, documents from the form. */

const c = await start(t)
const { page } = c
await c.signIn()

t.test('create a definition with the type picker, and an index chosen from its fields', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Definitions' }).click()
  await page.getByLabel('Name', { exact: true }).fill('books')
  const rows = page.locator('.schema-fields li')
  for (const [i, [name, type]] of [
    ['title', 'Text'],
    ['price', 'Number'],
    ['published', 'Date and time'],
    ['inPrint', 'Yes / no'],
  ].entries()) {
    await page.getByRole('button', { name: 'Add field' }).click()
    await rows.nth(i).getByLabel('Field name').fill(name!)
    await rows.nth(i).getByLabel('Type').selectOption({ label: type! })
  }
  t.same(
    await rows.nth(0).getByLabel('Type').locator('option').allTextContents(),
    ['Text', 'Number', 'Yes / no', 'Date and time', 'Location', 'Object (nested fields)', 'List', 'Files and images'],
    'every type the API knows, in words',
  )
  await rows.nth(0).getByLabel('Required').check()
  await page.getByRole('button', { name: 'Move price up' }).click()
  await page.getByRole('button', { name: 'Add index' }).click()
  await page.getByLabel('Index 1 field 1').selectOption('title')
  await page.getByLabel('Unique').check()

  await page.getByText('Advanced: JSON').click()
  const json = JSON.parse(await page.getByLabel('Fields (JSON, optional)').inputValue()) as Record<string, unknown>
  t.same(Object.keys(json), ['price', 'title', 'published', 'inPrint'], 'the JSON view shows the same state')

  await page.getByRole('button', { name: 'Create definition' }).click()
  await page.locator('tr[data-name="books"]').waitFor()
  const saved = await c.api<{ fields: Record<string, unknown>; indexes: unknown[] }>(
    'GET',
    '/api/v2/document-definitions/books',
  )
  t.same(saved.fields, {
    price: { type: 'number' },
    title: { type: 'string', required: true },
    published: { type: 'date' },
    inPrint: { type: 'boolean' },
  })
  t.match(saved.indexes, [{ fields: { title: 1 }, unique: true }])
})

t.test('add documents through the form; errors beside their field; leaving unsaved asks', async (t) => {
  await page.locator('tr[data-name="books"]').getByRole('link', { name: 'books' }).click()
  for (const [title, price] of [
    ['Dune', '9.5'],
    ['Emma', '7'],
    ['Walden', '12'],
  ] as const) {
    await page.getByRole('button', { name: 'New document' }).click()
    await page.getByRole('heading', { name: 'New document in books' }).waitFor()
    await page.getByLabel('title (required)').fill(title)
    await page.getByLabel('price').fill(price)
    await page.getByLabel('published').fill('2020-05-01T10:30')
    await page.getByLabel('inPrint').check()
    await page.getByRole('button', { name: 'Create document' }).click()
    await page.getByRole('heading', { name: /^Document [0-9a-f]{24}$/ }).waitFor()
    await page.getByRole('link', { name: '← Documents of books' }).click()
    await page.getByRole('heading', { name: 'Documents of books' }).waitFor()
  }
  const [dune] = await c.api<Record<string, unknown>[]>(
    'GET',
    `/api/v2/document-definitions/books/documents?query=${encodeURIComponent('{"title":"Dune"}')}`,
  )
  t.match(dune, { title: 'Dune', price: 9.5, inPrint: true, published: /^2020-05-01T\d\d:30:00\.000Z$/ })

  // A unique index clash: the API's reason is shown, not only the generic sentence.
  await page.getByRole('button', { name: 'New document' }).click()
  await page.getByLabel('title (required)').fill('Dune')
  await page.getByRole('button', { name: 'Create document' }).click()
  await page.getByRole('alert').first().waitFor()
  t.match(await page.getByRole('alert').first().textContent(), /\w/)

  let asked = ''
  page.once('dialog', (dialog) => {
    asked = dialog.message()
    void dialog.dismiss()
  })
  await page.getByRole('link', { name: '← Documents of books' }).click()
  t.match(asked, /without saving/, 'unsaved changes ask before leaving')
  t.equal(await page.getByLabel('title (required)').inputValue(), 'Dune', 'dismissed: the edit stays')
  page.once('dialog', (dialog) => {
    void dialog.accept()
  })
  await page.getByRole('link', { name: '← Documents of books' }).click()
  await page.getByRole('heading', { name: 'Documents of books' }).waitFor()
})

t.test('find one with the search box; sort by clicking a column', async (t) => {
  await page.getByText('Page 1 · 3 shown').waitFor()
  await page.getByLabel('Search').fill('wal')
  await page.getByLabel('Search').press('Enter')
  await page.getByText('Page 1 · 1 shown').waitFor()
  t.match(await page.locator('table.documents tbody').textContent(), /Walden/)
  t.equal(new URL(page.url()).searchParams.get('search'), 'wal', 'the search is in the address')
  await page.reload()
  await page.getByText('Page 1 · 1 shown').waitFor()
  t.equal(await page.getByLabel('Search').inputValue(), 'wal', 'a reload keeps it')

  await page.getByLabel('Search').fill('')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByText('Page 1 · 3 shown').waitFor()
  await page.getByRole('button', { name: 'price', exact: true }).click()
  await page.locator('th[aria-sort="ascending"]').waitFor()
  // The header is marked at once; the rows follow the answer.
  await page.locator('table.documents tbody tr').first().filter({ hasText: 'Emma' }).waitFor()
  t.same(await page.locator('table.documents tbody tr').evaluateAll((trs) => trs.length), 3)
  const prices = () =>
    page
      .locator('table.documents tbody tr')
      .evaluateAll((trs) =>
        trs
          .map((tr) => tr.textContent ?? '')
          .map((text) => (/Dune/.test(text) ? 'Dune' : /Emma/.test(text) ? 'Emma' : 'Walden')),
      )
  t.same(await prices(), ['Emma', 'Dune', 'Walden'], 'cheapest first')
  await page.getByRole('button', { name: /^price/ }).click()
  await page.locator('th[aria-sort="descending"]').waitFor()
  await page.locator('table.documents tbody tr').first().filter({ hasText: 'Walden' }).waitFor()
  t.same(await prices(), ['Walden', 'Dune', 'Emma'], 'dearest first')
  t.equal(new URL(page.url()).searchParams.get('sort'), '{"price":-1}', 'the sort is in the address')

  // The filter builder: field, operator, value, beside the JSON query.
  await page.getByLabel('Filter field').selectOption('price')
  await page.getByLabel('Operator').selectOption({ label: 'at least' })
  await page.getByLabel('Value').fill('9')
  await page.getByRole('button', { name: 'Add filter' }).click()
  await page.getByText('Page 1 · 2 shown').waitFor()
  t.same(await prices(), ['Walden', 'Dune'], 'price at least 9, still dearest first')
  t.ok(new URL(page.url()).searchParams.get('filters'), 'the filters are in the address')
  await page.reload()
  await page.getByText('Page 1 · 2 shown').waitFor()
  await page.getByRole('button', { name: 'Remove filter price at least 9' }).click()
  await page.getByText('Page 1 · 3 shown').waitFor()

  // The column chooser: a hidden column stays hidden after a reload.
  await page.getByText('Columns', { exact: true }).click()
  await page.getByRole('group', { name: 'Columns shown' }).getByLabel('published').uncheck()
  await page.locator('th[aria-sort]').waitFor()
  t.equal(await page.getByRole('button', { name: 'published', exact: true }).count(), 0, 'the column is gone')
  t.equal(new URL(page.url()).searchParams.get('hide'), 'published')
  await page.reload()
  await page.getByText('Page 1 · 3 shown').waitFor()
  t.equal(await page.getByRole('button', { name: 'published', exact: true }).count(), 0, 'still gone after a reload')
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
