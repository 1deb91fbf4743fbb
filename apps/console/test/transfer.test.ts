import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
const fields = { title: { type: 'string', required: true }, price: { type: 'number' } }
await c.api('POST', '/api/v2/document-definitions', { name: 'books', fields })
await c.api('POST', '/api/v2/document-definitions', { name: 'shelf', fields })
const books: [string, number][] = [
  ['Dune', 5],
  ['=HYPERLINK("http://evil","click")', 8],
  ['Emma', 11],
  ['Walden', 2],
]
for (const [title, price] of books) {
  await c.api('POST', '/api/v2/document-definitions/books/documents/new', { title, price })
}
await c.signIn()
let exported = ''

t.test('the documents list links to the page with its filter, which exports it as CSV', async (t) => {
  await page.goto('/console/definitions/books/documents')
  await page.getByLabel('Query (JSON)').fill('{"price": {"$gt": 4}}')
  await page.getByLabel('Sort (JSON)').fill('{"price": 1}')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByText('Page 1 · 3 shown').waitFor()
  await page.getByRole('link', { name: 'Import and export' }).click()
  await page.getByRole('heading', { name: 'Import and export: books' }).waitFor()
  t.equal(await page.title(), 'Import and export: books · Quire')
  t.equal(await page.getByLabel('Query (JSON)').inputValue(), '{"price":{"$gt":4}}', 'the filter came along')

  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export CSV' }).click()
  const done = await download
  t.equal(done.suggestedFilename(), 'books.csv')
  exported = readFileSync((await done.path())!, 'utf8')
  const lines = exported.trimEnd().split('\r\n')
  t.equal(lines[0], '_id,externalId,status,accessGroups,title,price')
  t.same(
    lines.slice(1).map((line) => line.split(',').slice(4).join(',')),
    ['Dune,5', `"'=HYPERLINK(""http://evil"",""click"")",8`, 'Emma,11'],
    'filtered, sorted, and the formula neutralised',
  )
})

t.test('a CSV file is imported and the summary shows what was refused', async (t) => {
  await page.goto('/console/definitions/shelf/transfer')
  const file = join(t.testdir(), 'books.csv')
  writeFileSync(file, `${exported}${',,,,,7\r\n'}`)
  await page.getByLabel('File to import').setInputFiles(file)
  await page.getByRole('button', { name: 'Import', exact: true }).click()
  await page.getByText('3 created, 1 failed').waitFor()
  const refused = page.getByRole('table', { name: 'Refused records' })
  t.match(await refused.locator('tbody tr').first().textContent(), /^4validation_error.*title/)
  const stored = await c.api<{ title: string }[]>(
    'GET',
    '/api/v2/document-definitions/shelf/documents?sort=%7B%22price%22%3A1%7D',
  )
  t.same(
    stored.map((book) => book.title),
    ['Dune', '=HYPERLINK("http://evil","click")', 'Emma'],
    'the text came back as it was',
  )
})

const SESSION = 'quire.console.session'
/** What an hour-old access token meets: the API answers 401, and the console must renew and retry. */
const expireToken = () =>
  page.evaluate((key) => {
    const stored = JSON.parse(localStorage.getItem(key) ?? '{}') as Record<string, unknown>
    localStorage.setItem(key, JSON.stringify({ ...stored, token: 'expired.expired.expired' }))
  }, SESSION)
const storedToken = () =>
  page.evaluate((key) => (JSON.parse(localStorage.getItem(key) ?? '{}') as { token?: string }).token, SESSION)

t.test('a 401 during an export or an import renews the session silently and retries once', async (t) => {
  await page.goto('/console/definitions/books/transfer')
  await page.getByRole('heading', { name: 'Import and export: books' }).waitFor()
  await expireToken()
  const answers: number[] = []
  const seen = (response: { url(): string; status(): number }) => {
    if (/\/documents\/(export|import)/.test(response.url())) answers.push(response.status())
  }
  page.on('response', seen)
  t.teardown(() => page.off('response', seen))
  const download = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Export NDJSON' }).click()
  const lines = readFileSync((await (await download).path())!, 'utf8')
    .trimEnd()
    .split('\n')
  t.equal(lines.length, books.length, 'the export came after the renewal')
  t.not(await storedToken(), 'expired.expired.expired', 'the session was renewed')

  await page.goto('/console/definitions/shelf/transfer')
  await page.getByRole('heading', { name: 'Import and export: shelf' }).waitFor()
  await expireToken()
  const file = join(t.testdir(), 'more.ndjson')
  writeFileSync(file, '{"title":"Kindred","price":3}\n{"title":"Rebecca","price":4}\n')
  await page.getByLabel('File to import').setInputFiles(file)
  await page.getByRole('button', { name: 'Import', exact: true }).click()
  await page.getByText('2 created, 0 failed').waitFor()
  t.not(await storedToken(), 'expired.expired.expired', 'renewed again')
  t.same(answers, [401, 200, 401, 200], 'each refused once, then sent again once with the new token')
  t.equal(await page.getByRole('alert').count(), 0, 'no error shown, no sign-in asked')
  const kindred = await c.api<unknown[]>(
    'GET',
    `/api/v2/document-definitions/shelf/documents?query=${encodeURIComponent('{"title":"Kindred"}')}`,
  )
  t.equal(kindred.length, 1, 'the file was imported once, not twice')
})

t.test('an export the API refuses shows why', async (t) => {
  await page.goto('/console/definitions/shelf/transfer')
  await page.getByLabel('Query (JSON)').fill('{"$where": "1"}')
  await page.getByRole('button', { name: 'Export JSON' }).click()
  await page.getByRole('alert').waitFor()
  t.match(await page.getByRole('alert').textContent(), /\$where/)
  t.same(c.cspViolations, [])
})
