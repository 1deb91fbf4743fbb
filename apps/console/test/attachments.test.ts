import { readFileSync } from 'node:fs'
import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.api('POST', '/api/v2/document-definitions', { name: 'letters', fields: { files: { type: 'attachment' } } })
const first = await c.api<{ _id: string }>('POST', '/api/v2/document-definitions/letters/documents/new', {
  externalId: 'first',
})
await c.api('POST', '/api/v2/document-definitions/letters/documents/new', { externalId: 'second' })
await c.signIn()

const file = (name: string) => page.locator(`li[data-file="${name}"]`)
const bytes = Buffer.alloc(3 * 1024 * 1024, 'quire ')

t.test('upload with a progress bar', async (t) => {
  await page.goto(`/console/definitions/letters/documents/${first._id}`)
  await page.getByRole('heading', { name: 'Attachments' }).waitFor()
  t.equal(await page.getByLabel('Field (valuePath)').inputValue(), 'files', 'the declared attachment field')
  await page.getByLabel('Files', { exact: true }).setInputFiles([
    { name: 'big.txt', mimeType: 'text/plain', buffer: bytes },
    { name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
  ])
  await page.getByRole('button', { name: 'Upload' }).click()
  await page.locator('progress').waitFor({ state: 'attached' })
  await file('big.txt').waitFor()
  await file('note.txt').waitFor()
  await page.locator('progress').waitFor({ state: 'detached' })
  t.equal(await page.locator('progress').count(), 0, 'the bar goes when done')
  t.match(await file('big.txt').textContent(), /3\.0 MB/)
})

t.test('download', async (t) => {
  const download = page.waitForEvent('download')
  await file('note.txt').getByRole('button', { name: 'Download' }).click()
  const done = await download
  t.equal(done.suggestedFilename(), 'note.txt')
  t.equal(readFileSync((await done.path())!, 'utf8'), 'hello')
})

t.test('copy to another document', async (t) => {
  await file('note.txt').getByRole('button', { name: 'Copy to…' }).click()
  await page.getByLabel('Find the target by').selectOption('externalId')
  await page.getByLabel('Target document').fill('second')
  await page.getByRole('button', { name: 'Copy file' }).click()
  await page.getByText('Copied note.txt to second').waitFor()
  const second = await c.api<{ files: { _fileName: string }[] }>(
    'GET',
    '/api/v2/document-definitions/letters/documents/second',
  )
  t.same(
    second.files.map((f) => f._fileName),
    ['note.txt'],
  )
})

t.test('a copy to a missing document shows the API userDescription', async (t) => {
  await file('note.txt').getByRole('button', { name: 'Copy to…' }).click()
  await page.getByLabel('Target document').fill('nobody')
  await page.getByRole('button', { name: 'Copy file' }).click()
  await page.getByRole('alert').waitFor()
  t.notMatch(await page.getByRole('alert').textContent(), /HTTP/)
})

t.test('delete an attachment', async (t) => {
  await file('big.txt').getByRole('button', { name: 'Delete' }).click()
  await file('big.txt').getByRole('button', { name: 'Yes' }).click()
  await file('big.txt').waitFor({ state: 'detached' })
  const stored = await c.api<{ files: { _fileName: string }[] }>(
    'GET',
    '/api/v2/document-definitions/letters/documents/first',
  )
  t.same(
    stored.files.map((f) => f._fileName),
    ['note.txt'],
  )
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
