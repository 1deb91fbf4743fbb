import t from 'tap'
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { installPacked, testResources } from '@quire/testing'
import { ADMIN, serve } from './serve.js'

const run = promisify(execFile)
// Packing, then installing from the registry (re2 builds from source) takes minutes on a busy machine.
t.setTimeout(900_000)
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

// What a user of the published package writes: the import, a login, a typed call.
const SCRIPT = `
import { createQuireClient } from '@quire/client'
const [baseUrl, username, password] = process.argv.slice(2)
const anonymous = createQuireClient({ baseUrl })
const login = await anonymous.POST('/auth/login', { body: { username, password } })
if (!login.data) throw new Error(JSON.stringify(login.error))
const client = createQuireClient({ baseUrl, token: login.data.data.accessToken, environmentId: 'default' })
const definitions = await client.GET('/api/v2/document-definitions')
console.log(JSON.stringify({ status: definitions.response.status, items: definitions.data?.data.length }))
`

t.test('the packed client installs into an empty folder and talks to a server', async (t) => {
  const folder = await installPacked(t, ROOT, '@quire/client')
  await writeFile(join(folder, 'session.mjs'), SCRIPT)

  const resources = await testResources(t)
  const baseUrl = await serve(t, resources)

  const { stdout } = await run('node', ['session.mjs', baseUrl, ADMIN.username, ADMIN.password], { cwd: folder })
  t.same(JSON.parse(stdout), { status: 200, items: 0 })
})
