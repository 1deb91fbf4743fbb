import { randomBytes } from 'node:crypto'
import t from 'tap'
import { sealer } from '../../src/lib/sealed.js'

const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'

t.test('a sealed value opens to its plaintext under its key, with a fresh IV each time', async (t) => {
  const sealed = sealer(randomBytes(32))
  const first = sealed.seal(secret)
  const second = sealed.seal(secret)
  t.match(first, /^v1\$[\w-]{16}\$[\w-]{22}\$[\w-]+$/, 'version, 12-byte IV, 16-byte tag, ciphertext')
  t.not(first, second)
  t.notMatch(first, secret)
  t.equal(sealed.open(first), secret)
  t.equal(sealed.open(second), secret)
  t.ok(sealed.isSealed(first))
})

t.test('a value stored before sealing is read as it is', async (t) => {
  const sealed = sealer(randomBytes(32))
  t.notOk(sealed.isSealed(secret))
  t.equal(sealed.open(secret), secret)
})

t.test('another key, an altered value or a shortened tag is refused, without the value in the error', async (t) => {
  const key = randomBytes(32)
  const value = sealer(key).seal(secret)
  const [version, iv, tag = '', ciphertext = ''] = value.split('$')
  const flipped = `${ciphertext.startsWith('A') ? 'B' : 'A'}${ciphertext.slice(1)}`
  const refused = [
    () => sealer(randomBytes(32)).open(value),
    () => sealer(key).open([version, iv, tag, flipped].join('$')),
    () => sealer(key).open([version, iv, tag.slice(0, 6), ciphertext].join('$')),
  ]
  for (const open of refused) {
    t.throws(open, { message: 'a sealed secret does not open with the secrets key (QUIRE_SECRETS_KEY)' })
  }
  t.throws(() => sealer(randomBytes(16)), /32 bytes/)
})
