import t from 'tap'
import { start } from './helper.js'

// A 2 × 1 PNG (one red, one blue pixel): small enough to write here, real enough for Chromium to draw.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAIAAAB7QOjdAAAADUlEQVR4nGP4zwAE/wEHAAH/4iOeWQAAAABJRU5ErkJggg==',
  'base64',
)

const c = await start(t)
const { page } = c
await c.api('POST', '/api/v2/document-definitions', {
  name: 'albums',
  fields: { title: { type: 'string' }, photos: { type: 'attachment' } },
})
const album = await c.api<{ _id: string }>('POST', '/api/v2/document-definitions/albums/documents/new', {
  title: 'Holidays',
})
await c.signIn()

const field = page.locator('li[data-field="photos"]')
const stored = (name: string) => field.locator(`li[data-attachment="${name}"]`)
const storedPhotos = async () =>
  (
    await c.api<{ photos?: { _fileName: string; _width?: number }[] }>(
      'GET',
      `/api/v2/document-definitions/albums/documents/${album._id}`,
    )
  ).photos ?? []

t.test('a new document says files come after it is created', async (t) => {
  await page.goto('/console/definitions/albums/documents/new')
  await field.waitFor()
  t.match(await field.textContent(), /Create the document first/)
  t.equal(await field.locator('input[type="file"]').count(), 0, 'no file input yet')
})

t.test('upload an image and see it, the unsaved edit kept', async (t) => {
  await page.goto(`/console/definitions/albums/documents/${album._id}`)
  await page.getByLabel('title').fill('Holidays 2026')
  await page.getByLabel('Add to photos').setInputFiles({ name: 'beach.png', mimeType: 'image/png', buffer: PNG })
  const image = stored('beach.png').getByRole('img', { name: 'beach.png' })
  await image.waitFor()
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('li[data-attachment="beach.png"] img')
    return img?.complete === true && img.naturalWidth > 0
  })
  t.equal(await image.evaluate((img: HTMLImageElement) => img.naturalWidth), 2, 'the picture itself is drawn')
  t.match(await image.getAttribute('src'), /^blob:/, 'through a blob URL: the file needs the bearer header')
  const meta = await stored('beach.png').locator('dl').textContent()
  t.match(meta, /2 × 1/, 'its dimensions, read-only')
  t.equal(await stored('beach.png').locator('input').count(), 0, 'no input for its metadata')
  t.same(
    (await storedPhotos()).map((photo) => [photo._fileName, photo._width]),
    [['beach.png', 2]],
    'stored at once',
  )
  t.equal(await page.getByLabel('title').inputValue(), 'Holidays 2026', 'the typed title is still there')
  t.notMatch(await page.getByRole('textbox', { name: 'Fields (JSON)' }).inputValue(), /_sha256|_fileName/)
})

t.test('drop a file on the field', async (t) => {
  const dropped = await page.evaluateHandle(() => {
    const transfer = new DataTransfer()
    transfer.items.add(new File(['plain words'], 'notes.txt', { type: 'text/plain' }))
    return transfer
  })
  await field.locator('[data-dropzone]').dispatchEvent('dragover', { dataTransfer: dropped })
  await field.locator('[data-dropzone]').dispatchEvent('drop', { dataTransfer: dropped })
  await stored('notes.txt').waitFor()
  t.match(await stored('notes.txt').textContent(), /text\/plain/, 'a file that is not an image shows its type')
  t.same(
    (await storedPhotos()).map((photo) => photo._fileName),
    ['beach.png', 'notes.txt'],
  )
})

t.test('saving the form keeps the files', async (t) => {
  await page.getByRole('button', { name: 'Save document' }).click()
  await page.getByText('Saved.').waitFor()
  t.same(
    (await storedPhotos()).map((photo) => photo._fileName),
    ['beach.png', 'notes.txt'],
  )
})

t.test('remove a file, after a confirmation', async (t) => {
  await stored('notes.txt').getByRole('button', { name: 'Remove notes.txt' }).click()
  await stored('notes.txt').getByRole('button', { name: 'Yes' }).click()
  await stored('notes.txt').waitFor({ state: 'detached' })
  t.same(
    (await storedPhotos()).map((photo) => photo._fileName),
    ['beach.png'],
  )
})

t.test('a refused upload is told beside the field', async (t) => {
  await c.api('DELETE', `/api/v2/document-definitions/albums/documents/${album._id}`)
  await page.getByLabel('Add to photos').setInputFiles({ name: 'late.png', mimeType: 'image/png', buffer: PNG })
  const alert = field.getByRole('alert')
  await alert.waitFor()
  t.notMatch(await alert.textContent(), /HTTP|Unexpected token/, 'the API userDescription, in words')
  t.equal(await field.locator('progress').count(), 0, 'no bar left behind')
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
