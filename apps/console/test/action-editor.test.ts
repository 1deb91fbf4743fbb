import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
const assets: string[] = []
page.on('request', (request) => {
  if (request.url().includes('/console/assets/')) assets.push(new URL(request.url()).pathname)
})
await c.api('POST', '/api/v2/document-definitions', { name: 'notes', fields: { title: { type: 'string' } } })
await c.signIn()

const editor = page.locator('fieldset.action').nth(0)
const script = editor.getByRole('textbox', { name: 'Script', exact: true })
const problem = editor.locator('p.syntax')
/** Types as a person does (a filled contenteditable gets the browser's inline styles, which the CSP refuses). */
async function typeScript(text: string) {
  await script.click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.press('Delete')
  await page.keyboard.type(text)
}

t.test('the code editor loads with the actions, not with the console', async (t) => {
  t.equal(assets.filter((path) => path.includes('/code-mirror-')).length, 0, 'not in the first load')
  await page.goto('/console/definitions/notes')
  await page.getByRole('button', { name: 'Add action' }).click()
  await editor.locator('.cm-editor').waitFor()
  t.equal(assets.filter((path) => path.includes('/code-mirror-')).length, 1, 'fetched for the editor')
  t.equal(await editor.locator('textarea').count(), 0, 'the plain box gave way to the editor')
})

t.test('a syntax error is marked beside its line, as the sandbox would parse it', async (t) => {
  await editor.getByLabel('Name', { exact: true }).fill('stamp')
  await typeScript('const stamp = new Date().toISOString()\nconst = 2\nreturn { stamp }')
  await problem.waitFor()
  t.match(await problem.textContent(), /^Line 2, column 7: Unexpected token/)
  const marker = editor.locator('.cm-gutter-lint .cm-lint-marker-error')
  await marker.waitFor()
  const line = await editor.locator('.cm-line').nth(1).boundingBox()
  const mark = await marker.boundingBox()
  t.ok(line && mark && Math.abs(mark.y + mark.height / 2 - (line.y + line.height / 2)) < line.height / 2, 'on line 2')
})

t.test('return and await at the top level are fine: the script is an async function body', async (t) => {
  await typeScript("const answer = await REST.call('api/v2/users', 'GET')\nreturn { stamp: new Date().toISOString() }")
  await problem.waitFor({ state: 'detached' })
  t.equal(await editor.locator('.cm-lint-marker-error').count(), 0)
  await page.getByRole('button', { name: 'Save actions' }).click()
  await page.getByText('Actions saved.').waitFor()
  const saved = await c.api<{ actions: { name: string; source: string }[] }>(
    'GET',
    '/api/v2/document-definitions/notes',
  )
  t.same(
    saved.actions.map(({ name, source }) => ({ name, source })),
    [
      {
        name: 'stamp',
        source: "const answer = await REST.call('api/v2/users', 'GET')\nreturn { stamp: new Date().toISOString() }",
      },
    ],
  )
})

t.test('a script that ends too early is told on its own last line', async (t) => {
  await typeScript('return (')
  await problem.waitFor()
  t.match(await problem.textContent(), /^Line 1, column 9: Unexpected end of the script/)
  t.notMatch(await problem.textContent(), /async function/, 'nothing of the wrapper shows')
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
