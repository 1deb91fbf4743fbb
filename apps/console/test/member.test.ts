import t from 'tap'
import { start } from './helper.js'

const c = await start(t)
const { page } = c
await c.api('POST', '/api/v2/document-definitions', { name: 'tasks', fields: { title: { type: 'string' } } })
const [ada] = await c.api<{ _id: string }[]>('POST', '/api/v2/users', {
  username: 'ada',
  password: 'ada-password-1',
  administrator: true,
})
await c.api('POST', '/api/v2/users', { username: 'mo', password: 'mo-password-1' })
const nav = page.getByRole('navigation', { name: 'Main' })
const signedIn = () => page.getByRole('button', { name: 'Sign out' }).isVisible()

t.test('a member is offered only what a member can do, and Packages does not sign out', async (t) => {
  await c.signIn(page, 'mo', 'mo-password-1')
  await nav.getByRole('link', { name: 'Packages' }).click()
  await page.getByRole('heading', { name: 'Marketplace' }).waitFor()
  t.ok(await signedIn(), 'still signed in')
  t.equal(await page.getByRole('heading', { name: 'Installed in this environment' }).count(), 0)
  t.equal(await page.getByRole('heading', { name: /New package/ }).count(), 0)

  await nav.getByRole('link', { name: 'Definitions' }).click()
  await page.locator('tr[data-name="tasks"]').waitFor()
  t.equal(await page.getByRole('button', { name: 'Create definition' }).count(), 0, 'no create form')
  t.equal(await page.locator('tr[data-name="tasks"]').getByRole('button', { name: 'Delete' }).count(), 0)

  await nav.getByRole('link', { name: 'Users' }).click()
  await page.locator('tr[data-username="mo"]').waitFor()
  t.equal(await page.getByRole('button', { name: 'Create user' }).count(), 0, 'no create form')
  await page.getByRole('button', { name: 'Sign out' }).click()
})

t.test('an administrator demoted meanwhile sees "not allowed", not the sign-in page', async (t) => {
  await c.signIn(page, 'ada', 'ada-password-1')
  await nav.getByRole('link', { name: 'Packages' }).click()
  await page.getByRole('heading', { name: 'Installed in this environment' }).waitFor()
  await nav.getByRole('link', { name: 'Definitions' }).click()
  await page.getByRole('heading', { name: 'Definitions' }).waitFor()
  // The API answers this listing 401 to a member; the page still believes ada is an administrator.
  await c.api('PATCH', `/api/v2/users/${ada!._id}`, { administrator: false })
  await nav.getByRole('link', { name: 'Packages' }).click()
  const alert = page.getByRole('alert').filter({ hasText: 'You are not allowed to do this' })
  await alert.waitFor()
  t.ok(await signedIn(), 'still signed in')
  t.equal(await page.getByRole('dialog').count(), 0, 'no sign-in dialog')
  t.equal(new URL(page.url()).pathname, '/console/packages')
  await page.getByRole('button', { name: 'Sign out' }).click()
})

t.test("a proxy's HTML error page is a plain message", async (t) => {
  await c.signIn(page, 'mo', 'mo-password-1')
  await page.route('**/api/v2/document-definitions?*', (route) =>
    route.fulfill({
      status: 502,
      contentType: 'text/html',
      body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    }),
  )
  await page.route('**/api/v2/document-definitions', (route) =>
    route.fulfill({
      status: 502,
      contentType: 'text/html',
      body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    }),
  )
  await nav.getByRole('link', { name: 'Definitions' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  t.match(await alert.textContent(), /HTTP 502/)
  t.notMatch(await alert.textContent(), /Unexpected token|JSON/)
  t.ok(await signedIn())
})

t.test('no Content-Security-Policy violation on any page', async (t) => {
  t.same(c.cspViolations, [])
})
