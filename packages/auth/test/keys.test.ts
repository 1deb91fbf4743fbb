import t from 'tap'
import { createSign, createVerify } from 'node:crypto'
import { readdir } from 'node:fs/promises'
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
