import type { Locator } from 'playwright-core'
import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.signIn()

const action = (name: string) => page.locator(`fieldset[data-action="${name}"]`)
/** Types into an action's code editor as a person does (a filled contenteditable gets inline styles the CSP refuses). */
async function typeScript(within: Locator, text: string) {
  await within.getByRole('textbox', { name: 'Script', exact: true }).click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.press('Delete')
  await page.keyboard.type(text)
}
const close =
  "console.log('closing', serverDocument._id)\n" +
  "await REST.call('api/v2/document-definitions/tasks/documents/' + serverDocument._id, 'PATCH', {}, { status: 'closed' })\n" +
  'return { closed: REST.lastStatus === 200 }\n'

t.test('declare actions on a definition, with a script that does not compile shown beside its action', async (t) => {
  await c.api('POST', '/api/v2/document-definitions', { name: 'tasks', fields: { title: { type: 'string' } } })
  await page.goto('/console/definitions/tasks')
  await page.getByRole('heading', { name: 'Definition tasks' }).waitFor()

  await page.getByRole('button', { name: 'Add action' }).click()
  const first = page.locator('fieldset.action').nth(0)
  await first.getByLabel('Name', { exact: true }).fill('close')
  await typeScript(first, 'return (')
  await page.getByRole('button', { name: 'Save actions' }).click()
  const error = action('close').getByRole('alert')
  await error.waitFor()
  t.match(await error.textContent(), /actions\/0\/source/)

  await typeScript(action('close'), close)
  await page.getByRole('button', { name: 'Add action' }).click()
  const second = page.locator('fieldset.action').nth(1)
  await second.getByLabel('Name', { exact: true }).fill('titled')
  await second.getByRole('checkbox', { name: 'manual' }).uncheck()
  await second.getByRole('checkbox', { name: 'beforeCreate' }).check()
  await typeScript(second, "if (!serverDocument.title) refuse('A title is required')")
  await page.getByRole('button', { name: 'Save actions' }).click()
  await page.getByText('Actions saved.').waitFor()

  const saved = await c.api<{ actions: { name: string; triggers: string[] }[] }>(
    'GET',
    '/api/v2/document-definitions/tasks',
  )
  t.same(
    saved.actions.map(({ name, triggers }) => ({ name, triggers })),
    [
      { name: 'close', triggers: ['manual'] },
      { name: 'titled', triggers: ['beforeCreate'] },
    ],
  )
})

t.test('a before-create refusal shows its message; a manual action runs and the document reloads', async (t) => {
  await page.goto('/console/definitions/tasks/documents/new')
  await page.getByLabel('Fields (JSON)').fill('{"note": "untitled"}')
  await page.getByRole('button', { name: 'Create document' }).click()
  const refusal = page.getByRole('alert')
  await refusal.waitFor()
  t.match(await refusal.textContent(), /A title is required/)

  await page.getByLabel('Fields (JSON)').fill('{"title": "Write the report"}')
  await page.getByRole('button', { name: 'Create document' }).click()
  await page.getByRole('button', { name: 'Run close' }).click()
  const outcome = page.getByRole('status').filter({ hasText: 'close answered' })
  await outcome.waitFor()
  t.match(await outcome.textContent(), /"closed": true/)
  // The action changed the document: the editor shows the stored version again.
  await page.waitForFunction(() =>
    /"status": "closed"/.test(document.querySelector<HTMLTextAreaElement>('textarea[name="document"]')?.value ?? ''),
  )
})

t.test('the runs page lists the runs with their output', async (t) => {
  await page.goto('/console/definitions/tasks/runs')
  const row = page.locator('tr[data-run]').filter({ hasText: 'close' }).first()
  await row.waitFor()
  t.match(await row.textContent(), /succeeded/)
  await row.getByRole('button', { name: 'Show' }).click()
  await page.getByText(/\[log\] closing/).waitFor()

  await page.getByLabel('Status').selectOption('refused')
  await page.getByRole('button', { name: 'Show runs' }).click()
  // The refused run was listed before the filter too: wait for the succeeded ones to go, then for it.
  const succeeded = page.locator('tr[data-run]').filter({ hasText: 'succeeded' })
  await succeeded.first().waitFor({ state: 'detached' })
  await page.locator('tr[data-run]').filter({ hasText: 'titled' }).first().waitFor()
  t.equal(await succeeded.count(), 0)
})

t.test('no Content-Security-Policy violation', async (t) => {
  t.same(c.cspViolations, [])
})
