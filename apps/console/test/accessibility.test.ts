import axe from 'axe-core'
import t from 'tap'
import { start } from './helper.js'

/** axe-core over the main pages, light and dark: no serious or critical violation. */

/** The checker's whole script, run in the page. */
const AXE = axe.source

interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

const c = await start(t)
await c.api('POST', '/api/v2/document-definitions', {
  name: 'books',
  fields: {
    title: { type: 'string', required: true },
    price: { type: 'number' },
    published: { type: 'date' },
    place: { type: 'location' },
    tags: { type: 'array' },
    files: { type: 'attachment' },
  },
  indexes: [{ fields: { title: 1 } }],
})
const book = await c.api<{ _id: string }>('POST', '/api/v2/document-definitions/books/documents/new', {
  title: 'Dune',
  price: 9,
})

for (const colorScheme of ['light', 'dark'] as const) {
  t.test(`${colorScheme}: no serious violation on the main pages`, async (t) => {
    // Its own context, so the checker's script is not held to the console's CSP.
    const context = await c.browser.newContext({ baseURL: c.url, bypassCSP: true, colorScheme })
    t.teardown(() => context.close())
    const page = await context.newPage()
    const check = async (name: string) => {
      await page.evaluate(AXE)
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe
        return (await axe.run()).violations
      })
      const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      t.same(
        serious.map((v) => `${v.id}: ${v.help} (${JSON.stringify(v.nodes.map((n) => n.target))})`),
        [],
        name,
      )
    }
    await page.goto('/console/')
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    await check('sign-in')
    await c.signIn(page)
    await check('home')
    for (const [path, heading] of [
      ['/console/definitions', 'Definitions'],
      ['/console/definitions/books', 'Definition books'],
      ['/console/definitions/books/documents', 'Documents of books'],
      ['/console/definitions/books/documents/new', 'New document in books'],
      [`/console/definitions/books/documents/${book._id}`, `Document ${book._id}`],
      ['/console/users', 'Users'],
      ['/console/packages', 'Packages'],
      ['/console/account', 'Your account'],
    ] as const) {
      await page.goto(path)
      await page.getByRole('heading', { name: heading, exact: true }).waitFor()
      await check(path)
    }
  })
}
