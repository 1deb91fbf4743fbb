// Lists and the document editor follow the change feed. Each test makes a first change that may race the
// stream's opening (the page reads again when it opens, so it shows either way), waits for it on the page, then
// a second one: only the feed can bring that one, since nothing else reads again.
import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
const core = '/api/v2/document-definitions/tasks/documents'
await c.api('POST', '/api/v2/document-definitions', { name: 'tasks', fields: { title: { type: 'string' } } })
const create = (title: string) => c.api<{ _id: string }>('POST', `${core}/new`, { title })
const rename = (id: string, title: string) => c.api('PATCH', `${core}/${id}`, { title })
await c.signIn()
const isStream = (url: string) => new URL(url).pathname.endsWith('/documents/changes')

t.test('documents created and deleted through the API show in the open list', async (t) => {
  await page.goto('/console/definitions/tasks/documents')
  await page.getByText('No documents match.').waitFor()
  const first = await create('first')
  await page.getByRole('link', { name: first._id }).waitFor()
  const second = await create('second')
  await page.getByRole('link', { name: second._id }).waitFor()
  await page.getByTestId('total').filter({ hasText: '2 documents' }).waitFor()
  t.equal(await page.getByTestId('live').textContent(), 'Live')

  await c.api('DELETE', `${core}/${first._id}`)
  await page.getByRole('link', { name: first._id }).waitFor({ state: 'detached' })
  await page.getByTestId('total').filter({ hasText: '1 document' }).waitFor()
  t.equal(await page.getByRole('alert').count(), 0)
})

t.test('the list reloads the page it shows, with its filter', async (t) => {
  await page.goto('/console/definitions/tasks/documents?query=%7B%22title%22%3A%22kept%22%7D')
  await page.getByText('No documents match.').waitFor()
  const kept = await create('kept')
  await page.getByRole('link', { name: kept._id }).waitFor()
  const other = await create('other')
  const again = await create('kept')
  await page.getByRole('link', { name: again._id }).waitFor()
  t.equal(await page.getByRole('link', { name: other._id }).count(), 0, 'what the filter leaves out stays out')
  t.equal(new URL(page.url()).search, '?query=%7B%22title%22%3A%22kept%22%7D')
})

t.test('an open document changed through the API, with nothing unsaved, is reloaded and says so', async (t) => {
  const { _id } = await create('draft')
  await page.goto(`/console/definitions/tasks/documents/${_id}`)
  const title = page.getByLabel('title', { exact: true })
  await title.waitFor()
  t.equal(await title.inputValue(), 'draft')
  await rename(_id, 'edited elsewhere')
  await page.getByText('This document was changed elsewhere and has been reloaded.').waitFor()
  await page.waitForFunction(
    () => (document.getElementById('field-title') as HTMLInputElement | null)?.value === 'edited elsewhere',
  )
  await rename(_id, 'edited again')
  await page.waitForFunction(
    () => (document.getElementById('field-title') as HTMLInputElement | null)?.value === 'edited again',
  )
  t.equal(await page.getByRole('alert').count(), 0)
})

t.test('an unsaved edit is never overwritten: the page offers to reload, and a save is refused', async (t) => {
  const { _id } = await create('mine')
  await page.goto(`/console/definitions/tasks/documents/${_id}`)
  const title = page.getByLabel('title', { exact: true })
  await title.waitFor()
  await rename(_id, 'theirs, first')
  await page.waitForFunction(
    () => (document.getElementById('field-title') as HTMLInputElement | null)?.value === 'theirs, first',
  )
  await title.fill('my unsaved edit')
  await rename(_id, 'theirs, second')
  const warning = page.getByRole('alert').filter({ hasText: 'This document was changed elsewhere' })
  await warning.waitFor()
  t.equal(await title.inputValue(), 'my unsaved edit', 'the edit is kept')

  await page.getByRole('button', { name: 'Save document' }).click()
  await page.getByRole('alert').filter({ hasText: 'changed by someone else' }).waitFor()
  const stored = await c.api<{ title: string }>('GET', `${core}/${_id}`)
  t.equal(stored.title, 'theirs, second', 'the other write was not overwritten')

  page.once('dialog', (dialog) => {
    void dialog.accept()
  })
  await warning.getByRole('button', { name: 'Reload and discard my changes' }).click()
  await page.waitForFunction(
    () => (document.getElementById('field-title') as HTMLInputElement | null)?.value === 'theirs, second',
  )
  await warning.waitFor({ state: 'detached' })
  await title.fill('mine at last')
  await page.getByRole('button', { name: 'Save document' }).click()
  await page.getByText('Saved.').waitFor()
  t.equal((await c.api<{ title: string }>('GET', `${core}/${_id}`)).title, 'mine at last')
})

t.test('a delete of the open document says so', async (t) => {
  const { _id } = await create('doomed')
  await page.goto(`/console/definitions/tasks/documents/${_id}`)
  await page.getByLabel('title', { exact: true }).waitFor()
  await c.api('DELETE', `${core}/${_id}`)
  await page.getByRole('alert').filter({ hasText: 'This document was deleted elsewhere' }).waitFor()
  t.ok(await page.getByRole('button', { name: 'Save document' }).isDisabled())
})

t.test('a stream opened with an expired token renews the session and follows on', async (t) => {
  const SESSION = 'quire.console.session'
  await page.goto('/console/definitions')
  await page.getByRole('heading', { name: 'Definitions' }).waitFor()
  await page.evaluate((key) => {
    const stored = JSON.parse(localStorage.getItem(key) ?? '{}') as Record<string, unknown>
    localStorage.setItem(key, JSON.stringify({ ...stored, token: 'expired.expired.expired' }))
  }, SESSION)
  const streams: number[] = []
  const seen = (response: { url(): string; status(): number }) => {
    if (isStream(response.url())) streams.push(response.status())
  }
  page.on('response', seen)
  t.teardown(() => page.off('response', seen))
  await page.goto('/console/definitions/tasks/documents?query=%7B%22title%22%3A%22renewed%22%7D')
  await page
    .getByTestId('live')
    .filter({ hasText: /^Live$/ })
    .waitFor()
  const first = await create('renewed')
  await page.getByRole('link', { name: first._id }).waitFor()
  const second = await create('renewed')
  await page.getByRole('link', { name: second._id }).waitFor()
  t.equal(streams.at(-1), 200, 'the stream is open with the renewed token')
  t.notOk(
    await page.evaluate((key) => localStorage.getItem(key)?.includes('expired.expired'), SESSION),
    'the session was renewed',
  )
  t.equal(await page.getByRole('alert').count(), 0, 'no error, no sign-in asked')
})

t.test('the stream stops when the page is left and at sign-out', async () => {
  await page.goto('/console/definitions/tasks/documents')
  await page
    .getByTestId('live')
    .filter({ hasText: /^Live$/ })
    .waitFor()
  const left = page.waitForEvent('requestfailed', (request) => isStream(request.url()))
  await page.getByRole('link', { name: '← Definitions' }).click()
  await left

  await page.goto('/console/definitions/tasks/documents')
  await page
    .getByTestId('live')
    .filter({ hasText: /^Live$/ })
    .waitFor()
  const signedOut = page.waitForEvent('requestfailed', (request) => isStream(request.url()))
  await page.getByRole('button', { name: 'Sign out' }).click()
  await signedOut
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
})

t.test('no Content-Security-Policy violation (connect-src self)', async (t) => {
  t.same(c.cspViolations, [])
})
