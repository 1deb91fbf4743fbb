import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import type { App } from '@quire/service-kit'
import { DEFINITIONS, form, list, login, notOwnerOnly, quire, serve, tempDir } from '../helper.js'

interface Listed {
  _id: string
  name: string
  [field: string]: unknown
}

/** What an environment answers: its definitions, each one's documents, its users (ids of another place aside). */
async function lists(server: App, headers: Record<string, string>) {
  const definitions = (await list(server, `${DEFINITIONS}?limit=100`, headers)) as Listed[]
  const documents: Record<string, unknown[]> = {}
  for (const definition of definitions) {
    const page = (await list(server, `${DEFINITIONS}/${definition.name}/documents?limit=100`, headers)) as Listed[]
    documents[definition.name] = page.map(({ _environmentId, _documentDefinitionId, ...document }) => document)
  }
  const users = (await list(server, '/api/v2/users?limit=100', headers)) as Listed[]
  return {
    definitions: definitions.map(({ _id, _environmentId, ...definition }) => definition),
    documents,
    // The entry for the environment asked about, under its id; the import changes the account's record.
    users: users.map(({ _id, username, profile }) => ({
      _id,
      username,
      entries: Object.values((profile as { environments: object }).environments),
    })),
  }
}

t.test('an environment exported and imported into a fresh one answers the same lists', async (t) => {
  const dataDir = await tempDir(t)
  const exportDir = join(await tempDir(t), 'export')
  const { server } = await serve(t, dataDir)
  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  const member = await server.inject({
    method: 'POST',
    url: '/api/v2/users',
    headers: admin,
    payload: { username: 'member', password: 'member password', groups: ['sales'] },
  })
  t.equal(member.statusCode, 201, member.body)
  for (const body of [
    { name: 'orders', indexes: [{ fields: { code: 1 }, unique: true }] },
    { name: 'notes', label: 'Notes' },
  ]) {
    const response = await server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload: body })
    t.equal(response.statusCode, 201, response.body)
  }
  let first = ''
  for (let i = 0; i < 12; i++) {
    const orders = `${DEFINITIONS}/orders/documents/new`
    const response = await server.inject({ method: 'POST', url: orders, headers: admin, payload: { code: i } })
    first ||= (response.json() as { data: { _id: string } }).data._id
    await server.inject({ method: 'POST', url: `${DEFINITIONS}/notes/documents/new`, headers: admin, payload: { i } })
  }
  const upload = await server.inject({
    method: 'POST',
    url: `${DEFINITIONS}/orders/documents/${first}/attachments?valuePath=files`,
    headers: admin,
    payload: form([{ name: 'a.txt', content: 'attached bytes' }]),
  })
  t.equal(upload.statusCode, 201, upload.body)
  const attachmentId = (upload.json() as { data: { attachments: { _id: string }[] } }).data.attachments[0]?._id
  const before = await lists(server, admin)

  const env = { QUIRE_DATA_DIR: dataDir }
  const exported = await quire(['export', 'default', exportDir], env)
  t.equal(exported.code, 0, exported.stderr)
  t.match(exported.stdout, /2 definitions, 24 documents, 1 files, 2 users/)

  t.test('into a new environment of the same store', async (t) => {
    const imported = await quire(['import', exportDir, '--as', 'copy'], env)
    t.equal(imported.code, 0, imported.stderr)
    t.match(imported.stdout, /imported into "copy": 2 definitions, 24 documents, 1 files, 2 users/)
    const copy = { ...admin, 'environment-id': 'copy' }
    t.same(await lists(server, copy), before)
    const download = await server.inject({
      method: 'GET',
      url: `${DEFINITIONS}/orders/documents/${first}/attachments/${attachmentId}`,
      headers: copy,
    })
    t.equal(download.statusCode, 200)
    t.equal(download.body, 'attached bytes')
    const duplicate = (headers: Record<string, string>) =>
      server.inject({ method: 'POST', url: `${DEFINITIONS}/orders/documents/new`, headers, payload: { code: 3 } })
    const [inCopy, inOriginal] = [await duplicate(copy), await duplicate(admin)]
    t.match(inOriginal.json().description, /unique index dd_code_1_unique/)
    t.same(inCopy.json(), inOriginal.json(), "the definition's unique index came along")
    const sales = await login(server, 'member', 'member password', 'copy')
    t.equal((await server.inject({ method: 'GET', url: DEFINITIONS, headers: sales.headers })).statusCode, 200)

    const twice = await quire(['import', exportDir, '--as', 'copy'], env)
    t.equal(twice.code, 1)
    t.match(twice.stderr, /the environment "copy" exists/)
  })

  t.test('into another store, under its own id', async (t) => {
    const otherDir = await tempDir(t)
    const imported = await quire(['import', exportDir], { QUIRE_DATA_DIR: otherDir })
    t.equal(imported.code, 0, imported.stderr)
    // The other store's first start makes its own admin; the imported ones keep their ids and entries.
    const { server: other } = await serve(t, otherDir)
    const reset = await quire(
      ['password', 'reset', 'member', '--password-stdin'],
      { QUIRE_DATA_DIR: otherDir },
      'pw for member',
    )
    t.equal(reset.code, 0, 'an imported account gets a password from the command line')
    const member = await login(other, 'member', 'pw for member', 'default')
    t.equal(member.status, 200)
    const orders = await list(other, `${DEFINITIONS}/orders/documents?limit=100`, member.headers)
    t.same(
      orders,
      await list(
        server,
        `${DEFINITIONS}/orders/documents?limit=100`,
        (await login(server, 'member', 'member password', 'default')).headers,
      ),
    )
  })

  t.test('a lone .ndjson file, and a truncated one', async (t) => {
    const file = join(await tempDir(t), 'default.ndjson')
    const exportedFile = await quire(['export', 'default', file], env)
    t.equal(exportedFile.code, 0, exportedFile.stderr)
    t.match(exportedFile.stdout, /1 attachment files left out/)
    const lines = (await readFile(file, 'utf8')).trim().split('\n')
    await writeFile(file, `${lines.slice(0, -1).join('\n')}\n`)
    const truncated = await quire(['import', file, '--as', 'cut'], env)
    t.equal(truncated.code, 1)
    t.match(truncated.stderr, /truncated/)
    const unknown = await quire(['export', 'nowhere', join(await tempDir(t), 'x')], env)
    t.equal(unknown.code, 1)
    t.match(unknown.stderr, /there is no environment "nowhere"/)
  })
})

t.test('an export, to a folder or a lone .ndjson, is owner-only', async (t) => {
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  await server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload: { name: 'orders' } })
  const documents = `${DEFINITIONS}/orders/documents`
  const document = await server.inject({ method: 'POST', url: `${documents}/new`, headers: admin, payload: {} })
  const documentId = (document.json() as { data: { _id: string } }).data._id
  const upload = await server.inject({
    method: 'POST',
    url: `${documents}/${documentId}/attachments?valuePath=files`,
    headers: admin,
    payload: form([{ name: 'a.txt', content: 'a' }]),
  })
  t.equal(upload.statusCode, 201, upload.body)

  const exportDir = join(await tempDir(t), 'export')
  const exported = await quire(['export', 'default', exportDir], { QUIRE_DATA_DIR: dataDir })
  t.equal(exported.code, 0, exported.stderr)
  t.match(exported.stdout, /1 files/)
  t.same(await notOwnerOnly(exportDir), {}, 'the folder, the NDJSON and the attachment files')

  const lone = join(await tempDir(t), 'default.ndjson')
  t.equal((await quire(['export', 'default', lone], { QUIRE_DATA_DIR: dataDir })).code, 0)
  t.equal((await stat(lone)).mode & 0o777, 0o600)
})
