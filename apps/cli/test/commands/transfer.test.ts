import { cp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DOCUMENTS_COLLECTIONS, type DefinitionRecord } from '@quire/documents-service'
import type { RecordStore } from '@quire/records'
import type { App } from '@quire/service-kit'
import { USERS_COLLECTIONS } from '@quire/users-service'
import {
  DEFINITIONS,
  downloads,
  form,
  list,
  login,
  orderWithFile,
  notOwnerOnly,
  quire,
  serve,
  tempDir,
  withCopies,
} from '../helper.js'

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
  const upload = await orderWithFile(server, admin, 'a')
  t.equal(upload.status, 201, upload.body)

  const exportDir = join(await tempDir(t), 'export')
  const exported = await quire(['export', 'default', exportDir], { QUIRE_DATA_DIR: dataDir })
  t.equal(exported.code, 0, exported.stderr)
  t.match(exported.stdout, /1 files/)
  t.same(await notOwnerOnly(exportDir), {}, 'the folder, the NDJSON and the attachment files')

  const lone = join(await tempDir(t), 'default.ndjson')
  t.equal((await quire(['export', 'default', lone], { QUIRE_DATA_DIR: dataDir })).code, 0)
  t.equal((await stat(lone)).mode & 0o777, 0o600)
})

t.test('copied attachments: an export holds their file once, and every copy downloads after the import', async (t) => {
  const dataDir = await tempDir(t)
  const { server } = await serve(t, dataDir)
  const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
  const held = await withCopies(server, admin)
  const expected = held.map(({ bytes }) => ({ status: 200, body: bytes }))

  const exportDir = join(await tempDir(t), 'export')
  const exported = await quire(['export', 'default', exportDir], { QUIRE_DATA_DIR: dataDir })
  t.equal(exported.code, 0, exported.stderr)
  t.match(exported.stdout, /3 files/, 'an attachment line for each copy')
  t.equal((await readdir(join(exportDir, 'files'))).length, 2, 'the bytes both copies read are there once')

  const imported = await quire(['import', exportDir, '--as', 'copy'], { QUIRE_DATA_DIR: dataDir })
  t.equal(imported.code, 0, imported.stderr)
  const copy = { ...admin, 'environment-id': 'copy' }
  t.same(await downloads(server, held, copy), expected)
  const removed = await server.inject({ method: 'DELETE', url: held[0]?.url ?? '', headers: copy })
  t.equal(removed.statusCode, 200)
  t.same((await downloads(server, held, copy)).slice(1), expected.slice(1), 'the other copy still reads the file')
  t.same(await downloads(server, held, admin), expected, 'the exported environment is untouched')
})

/** What an import that failed may have left of `environmentId` in `store`: nothing, when it is atomic. */
async function leftOf(store: RecordStore, environmentId: string) {
  const definitions = await DOCUMENTS_COLLECTIONS.definitions.in(store).find({ _environmentId: environmentId })
  let attachments = 0
  for (const { _id } of definitions) {
    attachments += await DOCUMENTS_COLLECTIONS.attachmentFiles.in(store).count({ definitionId: _id })
  }
  return {
    environment: await USERS_COLLECTIONS.environments.in(store).findOne({ _id: environmentId }),
    definitions: definitions.length,
    attachments,
    members: await USERS_COLLECTIONS.users.in(store).count({ environmentIds: environmentId }),
  }
}
const NOTHING = { environment: null, definitions: 0, attachments: 0, members: 0 }

/** Files under `dir`, at any depth. */
const filesIn = async (dir: string) =>
  (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).length

/** A served data dir whose `default` holds a member, two orders with an attachment each, exported to a folder. */
async function exportedEnvironment(t: Test) {
  const dataDir = await tempDir(t)
  const running = await serve(t, dataDir)
  const admin = (await login(running.server, 'admin', 'correct horse battery', 'default')).headers
  const member = await running.server.inject({
    method: 'POST',
    url: '/api/v2/users',
    headers: admin,
    payload: { username: 'member', password: 'member password', email: 'member@example.com' },
  })
  t.equal(member.statusCode, 201, member.body)
  await running.server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload: { name: 'orders' } })
  for (const content of ['first', 'second']) {
    const documents = `${DEFINITIONS}/orders/documents`
    const document = await running.server.inject({
      method: 'POST',
      url: `${documents}/new`,
      headers: admin,
      payload: {},
    })
    const upload = await running.server.inject({
      method: 'POST',
      url: `${documents}/${(document.json() as { data: { _id: string } }).data._id}/attachments?valuePath=files`,
      headers: admin,
      payload: form([{ name: 'a.txt', content }]),
    })
    t.equal(upload.statusCode, 201, upload.body)
  }
  const exportDir = join(await tempDir(t), 'export')
  const exported = await quire(['export', 'default', exportDir], { QUIRE_DATA_DIR: dataDir })
  t.equal(exported.code, 0, exported.stderr)
  const lines = (await readFile(join(exportDir, 'environment.ndjson'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  const adminId = (await USERS_COLLECTIONS.users.in(running.store).findOne({ username: 'admin' }))?._id ?? ''
  return { ...running, dataDir, exportDir, lines, adminId, env: { QUIRE_DATA_DIR: dataDir } }
}

/** A copy of the export in `exportDir` whose NDJSON has `lines` (the end line's counts made to fit). */
async function altered(t: Test, exportDir: string, lines: Record<string, unknown>[]) {
  const dir = join(await tempDir(t), 'altered')
  await cp(exportDir, dir, { recursive: true })
  const counted = (type: string) => lines.filter((line) => line.type === type).length
  const counts = { definitions: counted('definition'), documents: counted('document'), files: counted('file') }
  const body = lines.map((line) =>
    line.type === 'end' ? { type: 'end', counts: { ...counts, users: counted('user') } } : line,
  )
  await writeFile(join(dir, 'environment.ndjson'), body.map((line) => `${JSON.stringify(line)}\n`).join(''))
  return dir
}

/** The line a failure names, with nothing but that line printed. */
function refusedAt(t: Test, result: { code: number; stderr: string }, line: number, why: RegExp) {
  t.equal(result.code, 1)
  t.match(result.stderr, new RegExp(`^quire: \\S+environment\\.ndjson line ${line}: `))
  t.match(result.stderr, why)
  t.match(result.stderr, /; nothing was imported\n$/)
  t.equal(result.stderr.split('\n').length, 2, 'one line, no stack trace')
}

t.test('a hostile export is refused whole, naming its line, and takes nothing from the data dir', async (t) => {
  const { server, store, dataDir, exportDir, lines, adminId, env } = await exportedEnvironment(t)
  const fileAt = lines.findIndex((line) => line.type === 'file')
  const userAt = lines.findIndex((line) => line.type === 'user')
  const endAt = lines.length - 1
  const storedFiles = await filesIn(join(dataDir, 'files'))
  const withFile = (file: string) => lines.map((line, i) => (i === fileAt ? { ...line, file } : line))
  const withUser = (user: Record<string, unknown>) => [
    ...lines.slice(0, endAt),
    { ...lines[userAt], ...user },
    ...lines.slice(endAt),
  ]
  const keys = join(dataDir, 'keys', 'jwt-private.pem')
  t.ok(await stat(keys), 'the data dir holds a private key')

  for (const [name, file] of [
    ['a path out of the export', '../../../etc/passwd'],
    ['the absolute path of the private key', keys],
    ['the data dir key, relative', 'files/../../../keys/jwt-private.pem'],
    ['a name the export never writes', 'files/passwd'],
  ] as const) {
    const result = await quire(['import', await altered(t, exportDir, withFile(file)), '--as', 'evil'], env)
    refusedAt(t, result, fileAt + 1, /is not a file `quire export` writes/)
    t.same(await leftOf(store, 'evil'), NOTHING, name)
  }

  const linked = await altered(t, exportDir, lines)
  const target = join(linked, String(lines[fileAt]?.file))
  await rm(target)
  await symlink(keys, target)
  refusedAt(t, await quire(['import', linked, '--as', 'evil'], env), fileAt + 1, /is not a plain file/)

  const changed = await altered(t, exportDir, lines)
  await writeFile(join(changed, String(lines[fileAt]?.file)), 'other bytes')
  refusedAt(
    t,
    await quire(['import', changed, '--as', 'evil'], env),
    fileAt + 1,
    /does not hold the bytes it was made with/,
  )

  const documentAt = lines.findIndex((line) => line.type === 'document')
  const twice = [...lines.slice(0, documentAt + 1), ...lines.slice(documentAt)]
  const duplicated = await quire(['import', await altered(t, exportDir, twice), '--as', 'evil'], env)
  refusedAt(t, duplicated, documentAt + 2, /duplicate key for index _id/)
  t.same(await leftOf(store, 'evil'), NOTHING, 'a document twice')

  // After the definitions, documents, files and the member's entry were written: all of it is taken back.
  for (const username of ['admin', 'ADMIN', 'ａｄｍｉｎ']) {
    const hostile = await altered(t, exportDir, withUser({ _id: 'aaaaaaaaaaaaaaaaaaaaaaaa', username }))
    const result = await quire(['import', hostile, '--as', 'evil'], env)
    refusedAt(t, result, endAt + 1, /The username ".+" is taken/)
    t.same(await leftOf(store, 'evil'), NOTHING, username)
  }
  const asAdmin = await altered(t, exportDir, withUser({ _id: adminId, username: 'someone' }))
  refusedAt(t, await quire(['import', asAdmin, '--as', 'evil'], env), endAt + 1, /is "admin" here, not "someone"/)
  const invisible = await altered(t, exportDir, withUser({ _id: 'bbbbbbbbbbbbbbbbbbbbbbbb', username: 'mem\u200bber' }))
  refusedAt(t, await quire(['import', invisible, '--as', 'evil'], env), endAt + 1, /must not contain U\+200B/)

  const address = {
    _id: 'dddddddddddddddddddddddd',
    username: 'newcomer',
    globalEmails: [{ address: 'MEMBER@example.com' }],
  }
  const taken = await quire(['import', await altered(t, exportDir, withUser(address)), '--as', 'evil'], env)
  refusedAt(t, taken, endAt + 1, /The e-mail address belongs to another account/)

  t.same(await leftOf(store, 'evil'), NOTHING)
  t.equal(await filesIn(join(dataDir, 'files')), storedFiles, 'no file stored, none left')
  const superAdministrator = await USERS_COLLECTIONS.users.in(store).findOne({ _id: adminId })
  t.same(superAdministrator?.environmentIds, ['default'], 'the super-administrator was attached to nothing')
  const imported = await quire(['import', exportDir, '--as', 'evil'], env)
  t.equal(imported.code, 0, imported.stderr)
  const member = await login(server, 'member', 'member password', 'evil')
  t.equal(member.status, 200, 'the export as made imports: the member is the same account')
})

t.test('an account the import creates is taken back when a later line fails', async (t) => {
  const exported = await exportedEnvironment(t)
  // That store's own `admin` holds the name: the exported one's line would be refused first.
  const lines = exported.lines.filter((line) => line.username !== 'admin')
  const exportDir = await altered(t, exported.exportDir, lines)
  const otherDir = await tempDir(t)
  const { store } = await serve(t, otherDir)
  const accounts = await USERS_COLLECTIONS.users.in(store).count({})
  const endAt = lines.length - 1
  const clash = {
    ...lines.find((line) => line.type === 'user'),
    _id: 'cccccccccccccccccccccccc',
    username: 'Member',
    globalEmails: [],
  }
  const hostile = await altered(t, exportDir, [...lines.slice(0, endAt), clash, ...lines.slice(endAt)])
  const result = await quire(['import', hostile, '--as', 'other'], { QUIRE_DATA_DIR: otherDir })
  refusedAt(t, result, endAt + 1, /The username "Member" is taken/)
  t.same(await leftOf(store, 'other'), NOTHING)
  t.equal(await USERS_COLLECTIONS.users.in(store).count({}), accounts, 'the member created on the way is gone')
})

t.test(
  'a truncated NDJSON, a missing file or a killed import leaves nothing; the same import then works',
  async (t) => {
    const { server, store, exportDir, lines, env } = await exportedEnvironment(t)
    const admin = (await login(server, 'admin', 'correct horse battery', 'default')).headers
    const ndjson = join(exportDir, 'environment.ndjson')
    const whole = await readFile(ndjson)

    await writeFile(ndjson, whole.subarray(0, Math.floor(whole.length / 2)))
    const cut = await quire(['import', exportDir, '--as', 'again'], env)
    t.equal(cut.code, 1)
    t.match(cut.stderr, /line \d+: not JSON \(the file is damaged or was cut short\); nothing was imported\n$/)
    t.same(await leftOf(store, 'again'), NOTHING)
    const withoutEnd = whole.subarray(0, whole.lastIndexOf('\n', whole.length - 2) + 1)
    await writeFile(ndjson, withoutEnd)
    const noEnd = await quire(['import', exportDir, '--as', 'again'], env)
    t.equal(noEnd.code, 1)
    t.match(noEnd.stderr, /it is truncated \(no end line after line \d+\); nothing was imported/)
    await writeFile(ndjson, whole)

    const fileAt = lines.findIndex((line) => line.type === 'file')
    const file = join(exportDir, String(lines[fileAt]?.file))
    const bytes = await readFile(file)
    await rm(file)
    refusedAt(t, await quire(['import', exportDir, '--as', 'again'], env), fileAt + 1, /files\/[0-9a-f]{64} is missing/)
    t.same(await leftOf(store, 'again'), NOTHING)
    await writeFile(file, bytes)

    // What a killed import leaves: written before the environment, which is created last.
    const killed = { _id: 'eeeeeeeeeeeeeeeeeeeeeeee', name: 'orders', _environmentId: 'again' } as DefinitionRecord
    await DOCUMENTS_COLLECTIONS.definitions.in(store).insertOne(killed)
    const imported = await quire(['import', exportDir, '--as', 'again'], env)
    t.equal(imported.code, 0, imported.stderr)
    t.match(imported.stdout, /removed what an interrupted import left of "again"/)
    t.match(imported.stdout, /1 definitions, 2 documents, 2 files, 2 users/)
    const again = { ...admin, 'environment-id': 'again' }
    const documents = (await list(server, `${DEFINITIONS}/orders/documents`, again)) as {
      _id: string
      files: { _id: string }[]
    }[]
    const bodies: string[] = []
    for (const document of documents) {
      const url = `${DEFINITIONS}/orders/documents/${document._id}/attachments/${document.files[0]?._id}`
      bodies.push((await server.inject({ method: 'GET', url, headers: again })).body)
    }
    t.same(bodies.sort(), ['first', 'second'])
  },
)
