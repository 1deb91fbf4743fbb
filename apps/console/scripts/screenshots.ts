// Screenshots of the console's main pages for its README, in light and one in dark:
//   npx turbo run build --filter=@quire/gateway... && cd apps/console && npx tap scripts/screenshots.ts
// It starts the built gateway on a temp data dir (test/helper.ts), fills it with a little data, and writes
// docs/console/*.png at the repository root.
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { start } from '../test/helper.js'

const OUT = fileURLToPath(new URL('../../../docs/console/', import.meta.url))
// A 2 × 2 PNG, scaled up by the preview box: enough to show an image attachment.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGN4VqGhkXeCQWNB1K9LNgApCAYP72KokgAAAABJRU5ErkJggg==',
  'base64',
)

const c = await start(t)
const { page } = c
mkdirSync(OUT, { recursive: true })
await c.api('POST', '/api/v2/document-definitions', {
  name: 'books',
  fields: {
    title: { type: 'string', required: true },
    price: { type: 'number' },
    published: { type: 'date' },
    inStock: { type: 'boolean' },
    cover: { type: 'attachment' },
  },
  actions: [
    {
      name: 'discount',
      triggers: ['manual'],
      source:
        'const percent = context.input?.percent ?? 10\nreturn { price: serverDocument.price * (100 - percent) / 100 }\n',
    },
  ],
})
const titles = ['Dune', 'Emma', 'Ulysses', 'Beloved', 'Middlemarch', 'Walden', 'Kindred', 'Rebecca']
const ids: string[] = []
for (const [i, title] of titles.entries()) {
  const created = await c.api<{ _id: string }>('POST', '/api/v2/document-definitions/books/documents/new', {
    title,
    price: 5 + i * 3,
    inStock: i % 2 === 0,
    published: `19${60 + i}-05-01T10:30:00.000Z`,
  })
  ids.push(created._id)
}
await fetch(`${c.url}/api/v2/document-definitions/books/documents/${ids[0]}/attachments?valuePath=cover`, {
  method: 'POST',
  headers: { authorization: `Bearer ${await token()}`, 'environment-id': 'default' },
  body: (() => {
    const form = new FormData()
    form.append('file', new Blob([PNG], { type: 'image/png' }), 'cover.png')
    return form
  })(),
})
await c.api('POST', '/api/v2/environments', { _id: 'staging', name: 'Staging' })
await c.api('POST', '/api/v2/users', { username: 'ada', password: 'ada-password-1', administrator: true })

async function token(): Promise<string> {
  const res = await fetch(`${c.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'console-test-password-1' }),
  })
  return ((await res.json()) as { data: { accessToken: string } }).data.accessToken
}

const shoot = (name: string) => page.screenshot({ path: `${OUT}${name}.png`, fullPage: true })

t.test('sign-in', async () => {
  await page.goto('/console/')
  await page.getByRole('button', { name: 'Sign in' }).waitFor()
  await shoot('sign-in')
  await c.signIn()
})

t.test('documents with their total', async () => {
  await page.goto('/console/definitions/books/documents')
  await page.getByTestId('total').waitFor()
  await shoot('documents')
})

t.test('the document form with an image attachment', async () => {
  await page.goto(`/console/definitions/books/documents/${ids[0]}`)
  await page.getByRole('img', { name: 'cover.png' }).waitFor()
  await shoot('document-form')
})

t.test('the schema builder and an action with a syntax error', async () => {
  await page.goto('/console/definitions/books')
  const script = page.locator('fieldset.action').first().getByRole('textbox', { name: 'Script', exact: true })
  await script.click()
  await page.keyboard.press('ControlOrMeta+End')
  await page.keyboard.type('const = 1')
  await page.locator('p.syntax').waitFor()
  await shoot('schema-builder')
})

t.test('environments', async () => {
  await page.goto('/console/environments')
  await page.locator('tr[data-environment="staging"]').waitFor()
  await shoot('environments')
})

t.test('two-factor enrolment', async () => {
  await page.goto('/console/account')
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click()
  await page.getByRole('img', { name: /QR code/ }).waitFor()
  await shoot('two-factor')
})

t.test('users', async () => {
  await page.goto('/console/users')
  await page.locator('tr[data-username="ada"]').waitFor()
  await shoot('users')
})

t.test('dark mode', async () => {
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.goto('/console/definitions/books/documents')
  await page.getByTestId('total').waitFor()
  await shoot('documents-dark')
})
