import t from 'tap'
import { execFile } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { app, ConfigSchema, upstreamsFrom } from '@quire/gateway'
import { createServer, loadConfig } from '@quire/service-kit'
import { installPacked, testResources } from '@quire/testing'

const run = promisify(execFile)
// Packing, then installing from the registry (re2 builds from source) takes minutes on a busy machine.
t.setTimeout(900_000)
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const ADMIN = { username: 'admin', password: 'correct horse battery' }

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
  const config = loadConfig(ConfigSchema, {
    QUIRE_DATA_DIR: resources.dataDir,
    QUIRE_ADMIN_USERNAME: ADMIN.username,
    QUIRE_ADMIN_PASSWORD: ADMIN.password,
    // Test files share two cores: no 503 for the machine's slow event loop.
    QUIRE_MAX_EVENT_LOOP_DELAY_MS: '60000',
  })
  const server = createServer({ logLevel: 'silent' })
  await server.register(app, { config, upstreams: upstreamsFrom(config), local: resources })
  t.teardown(() => server.close())
  const baseUrl = await server.listen({ port: 0, host: '127.0.0.1' })

  const { stdout } = await run('node', ['session.mjs', baseUrl, ADMIN.username, ADMIN.password], { cwd: folder })
  t.same(JSON.parse(stdout), { status: 200, items: 0 })
})
