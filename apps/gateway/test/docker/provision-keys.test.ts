import { execFile } from 'node:child_process'
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)
const SCRIPT = new URL('../../../../docker/provision-keys.mjs', import.meta.url).pathname
const isRoot = process.getuid?.() === 0
// As root (as in the compose job) the private key is handed to another user, as the users service runs as `node`.
const owner = isRoot ? { uid: 1000, gid: 1000 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
const self = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
const mode = async (path: string) => (await stat(path)).mode & 0o777

const provision = (dir: string) =>
  run(process.execPath, [
    SCRIPT,
    join(dir, 'private'),
    join(dir, 'public'),
    join(dir, 'shared'),
    `${owner.uid}:${owner.gid}`,
  ])

t.test("the private key is its owner's alone, the public key everyone's to read and nobody's to change", async (t) => {
  const dir = t.testdir()
  await provision(dir)
  const privatePath = join(dir, 'private', 'jwt-private.pem')
  const publicPath = join(dir, 'public', 'jwt-public.pem')

  t.equal(await mode(join(dir, 'private')), 0o700, 'private folder 0700')
  t.equal(await mode(privatePath), 0o400, 'private key 0400')
  t.match(await stat(privatePath), owner, 'private key owned by the users service')
  t.match(await stat(join(dir, 'private')), owner)
  const secretsPath = join(dir, 'private', 'secrets.key')
  t.equal(await mode(secretsPath), 0o400, 'secrets key 0400, beside the private key')
  t.match(await stat(secretsPath), owner)
  t.equal(Buffer.from((await readFile(secretsPath, 'utf8')).trim(), 'base64').length, 32, '32 bytes in base64')
  t.equal(await mode(join(dir, 'public')), 0o755, 'public folder 0755')
  t.equal(await mode(publicPath), 0o444, 'public key 0444')
  t.match(await stat(publicPath), self, 'public key owned by the provisioner')

  const privateKey = createPrivateKey(await readFile(privatePath, 'utf8'))
  const publicKey = createPublicKey(await readFile(publicPath, 'utf8'))
  const signature = sign('sha256', Buffer.from('token'), privateKey)
  t.ok(verify('sha256', Buffer.from('token'), publicKey, signature), 'the public key verifies the private key')
  t.notMatch(await readFile(publicPath, 'utf8'), /PRIVATE/)

  const before = await readFile(privatePath, 'utf8')
  const secretsBefore = await readFile(secretsPath, 'utf8')
  await provision(dir)
  t.equal(await readFile(privatePath, 'utf8'), before, 'a second run keeps the key (tokens stay valid)')
  t.equal(await readFile(secretsPath, 'utf8'), secretsBefore, 'and the secrets key (sealed secrets stay readable)')
  t.equal(await mode(privatePath), 0o400)
})

t.test('the run token key is shared by the services, apart from the private key, and kept', async (t) => {
  const dir = t.testdir()
  await provision(dir)
  const runTokenPath = join(dir, 'shared', 'run-token.key')
  t.equal(await mode(join(dir, 'shared')), 0o700, 'shared folder 0700')
  t.match(await stat(join(dir, 'shared')), owner)
  t.equal(await mode(runTokenPath), 0o400, 'run token key 0400')
  t.match(await stat(runTokenPath), owner, 'owned by the services')
  const key = await readFile(runTokenPath, 'utf8')
  t.match(key, /^[A-Za-z0-9+/]{43}=\n$/, 'base64 on one line, as QUIRE_RUN_TOKEN_KEY_FILE reads it')
  t.equal(Buffer.from(key.trim(), 'base64').length, 32, '32 bytes')
  t.not(key, await readFile(join(dir, 'private', 'secrets.key'), 'utf8'), 'not the secrets key')

  const webhooksPath = join(dir, 'shared', 'webhooks.key')
  t.equal(await mode(webhooksPath), 0o400, 'webhooks key 0400')
  t.match(await stat(webhooksPath), owner, 'owned by the services')
  const webhooksKey = await readFile(webhooksPath, 'utf8')
  t.match(webhooksKey, /^[A-Za-z0-9+/]{43}=\n$/, 'base64 on one line, as QUIRE_WEBHOOKS_SECRETS_KEY_FILE reads it')
  t.not(webhooksKey, key, 'not the run token key')

  await provision(dir)
  t.equal(await readFile(runTokenPath, 'utf8'), key, "a second run keeps it (runs' tokens stay valid)")
  t.equal(await readFile(webhooksPath, 'utf8'), webhooksKey, "a second run keeps it (webhooks' secrets stay readable)")
})

t.test('another user can read the public key and not the private one', { skip: !isRoot && 'needs root' }, async (t) => {
  const dir = t.testdir()
  await provision(dir)
  const read = (path: string, uid: number) =>
    run(process.execPath, ['-e', `require('fs').readFileSync(${JSON.stringify(path)})`], { uid, gid: uid })
  // 1001: any user but the users service's (the other services run as `node` too, but never mount the volume).
  await t.rejects(read(join(dir, 'private', 'jwt-private.pem'), 1001), /EACCES/)
  await t.rejects(read(join(dir, 'shared', 'run-token.key'), 1001), /EACCES/)
  await t.resolves(read(join(dir, 'shared', 'run-token.key'), owner.uid), 'the services read the run token key')
  await t.resolves(read(join(dir, 'public', 'jwt-public.pem'), 1001))
  await t.resolves(read(join(dir, 'private', 'jwt-private.pem'), owner.uid), 'its owner reads it')
})

t.test('a wrong call says how to call it', async (t) => {
  await t.rejects(run(process.execPath, [SCRIPT, 'only-one']), { code: 2, stderr: /usage: node provision-keys\.mjs/ })
})
