import t from 'tap'
import { createSign, createVerify, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, readdir, stat, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import { loadKeyPair } from '../src/index.js'

t.test('a key pair is generated once per data dir, even by processes starting together', async (t) => {
  const dataDir = t.testdir()
  const pairs = await Promise.all([1, 2, 3, 4].map(() => loadKeyPair({ dataDir })))
  for (const pair of pairs) t.same(pair, pairs[0])
  const again = await loadKeyPair({ dataDir })
  t.same(again, pairs[0], 'a restart reads the same pair')
  const signature = createSign('RSA-SHA256').update('x').sign(again.privateKey)
  t.ok(createVerify('RSA-SHA256').update('x').verify(again.publicKey, signature), 'the pair matches')
})

t.test('given PEMs win over the data dir', async (t) => {
  const pair = await loadKeyPair({ dataDir: t.testdir(), privateKey: 'PRIVATE', publicKey: 'PUBLIC' })
  t.same(pair, { privateKey: 'PRIVATE', publicKey: 'PUBLIC' })
})

t.test('a public key given alone: verify only, no private key and nothing generated', async (t) => {
  const dataDir = t.testdir()
  const pair = await loadKeyPair({ dataDir, publicKey: 'PUBLIC' })
  t.same(pair, { publicKey: 'PUBLIC' })
  t.notOk('privateKey' in pair, 'no private key')
  t.same(await readdir(dataDir), [], 'no keys folder, no pair generated')
})

t.test('a secrets key is generated beside a generated pair, once, and everything there is owner-only', async (t) => {
  const dataDir = join(t.testdir(), 'data')
  const loaded = await Promise.all([1, 2, 3].map(() => loadKeyPair({ dataDir })))
  for (const keys of loaded) t.same(keys.secretsKey, loaded[0]?.secretsKey)
  t.equal(loaded[0]?.secretsKey.length, 32)
  const keysDir = join(dataDir, 'keys')
  t.same((await readdir(keysDir)).sort(), ['jwt-private.pem', 'jwt-public.pem', 'secrets.key'])
  t.equal((await stat(dataDir)).mode & 0o777, 0o700)
  t.equal((await stat(keysDir)).mode & 0o777, 0o700)
  for (const file of await readdir(keysDir)) t.equal((await stat(join(keysDir, file))).mode & 0o777, 0o600, file)
  t.same((await loadKeyPair({ dataDir })).secretsKey, loaded[0]?.secretsKey, 'a restart reads the same one')
})

t.test('an install from before gets a secrets key beside the pair it keeps, in a tightened folder', async (t) => {
  const dataDir = t.testdir()
  const before = await loadKeyPair({ dataDir })
  await unlink(join(dataDir, 'keys', 'secrets.key'))
  await chmod(join(dataDir, 'keys'), 0o755)
  const after = await loadKeyPair({ dataDir })
  t.equal(after.privateKey, before.privateKey)
  t.equal(after.secretsKey.length, 32)
  t.equal((await stat(join(dataDir, 'keys'))).mode & 0o777, 0o700)
})

t.test('a given secrets key wins; given PEMs never get a generated one', async (t) => {
  const key = randomBytes(32)
  const dataDir = t.testdir()
  const given = await loadKeyPair({ dataDir, secretsKey: `${key.toString('base64')}\n` })
  t.same(given.secretsKey, key)
  t.notOk(existsSync(join(dataDir, 'keys', 'secrets.key')))
  const withPems = await loadKeyPair({
    dataDir,
    privateKey: 'PRIVATE',
    publicKey: 'PUBLIC',
    secretsKey: key.toString('base64'),
  })
  t.same(withPems, { privateKey: 'PRIVATE', publicKey: 'PUBLIC', secretsKey: key })
  const verifyOnly = await loadKeyPair({ dataDir, publicKey: 'PUBLIC', secretsKey: key.toString('base64') })
  t.same(verifyOnly, { publicKey: 'PUBLIC' }, 'a process that only verifies holds no secrets key')
  for (const bad of ['short', randomBytes(16).toString('base64'), randomBytes(32).toString('hex')]) {
    await t.rejects(loadKeyPair({ dataDir, secretsKey: bad }), /32 bytes in base64/)
  }
})
