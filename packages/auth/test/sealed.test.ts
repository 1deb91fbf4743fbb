import { randomBytes } from 'node:crypto'
import t from 'tap'
import { decodeSecretsKey, sealer, type SealerOptions } from '../src/index.js'

const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
const refusal = 'a sealed secret does not open with the secrets key (QUIRE_SECRETS_KEY)'
const reads: SealerOptions = { unsealed: 'read', refusal }
const refuses: SealerOptions = { unsealed: 'refused', refusal }

t.test('a sealed value opens to its plaintext under its key, with a fresh IV each time', async (t) => {
  for (const options of [reads, refuses]) {
    const sealed = sealer(randomBytes(32), options)
    const first = sealed.seal(secret)
    const second = sealed.seal(secret)
    t.match(first, /^v1\$[\w-]{16}\$[\w-]{22}\$[\w-]+$/, 'version, 12-byte IV, 16-byte tag, ciphertext')
    t.not(first, second)
    t.notMatch(first, secret)
    t.equal(sealed.open(first), secret)
    t.equal(sealed.open(second), secret)
    t.ok(sealed.isSealed(first))
  }
})

t.test('a value stored before sealing is read as it is, or refused where values are always sealed', async (t) => {
  t.notOk(sealer(randomBytes(32), reads).isSealed(secret))
  t.equal(sealer(randomBytes(32), reads).open(secret), secret)
  t.throws(() => sealer(randomBytes(32), refuses).open(secret), { message: refusal })
})

t.test('another key, an altered value or a shortened tag is refused, without the value in the error', async (t) => {
  const key = randomBytes(32)
  const value = sealer(key, reads).seal(secret)
  const [version, iv, tag = '', ciphertext = ''] = value.split('$')
  const flipped = `${ciphertext.startsWith('A') ? 'B' : 'A'}${ciphertext.slice(1)}`
  const refused = [
    () => sealer(randomBytes(32), reads).open(value),
    () => sealer(key, reads).open([version, iv, tag, flipped].join('$')),
    () => sealer(key, refuses).open([version, iv, tag.slice(0, 6), ciphertext].join('$')),
  ]
  for (const open of refused) t.throws(open, { message: refusal })
  t.throws(() => sealer(randomBytes(16), reads), /32 bytes/)
})

t.test('a secrets key is 32 bytes in base64; the error names the setting', async (t) => {
  const key = randomBytes(32)
  t.same(decodeSecretsKey(`${key.toString('base64')}\n`), key, 'a key file with its trailing newline')
  for (const text of [randomBytes(16).toString('base64'), 'not base64 at all!', `${key.toString('base64')}x`]) {
    t.throws(() => decodeSecretsKey(text), { message: /^the secrets key must be 32 bytes in base64/ })
    t.throws(() => decodeSecretsKey(text, 'QUIRE_WEBHOOKS_SECRETS_KEY'), {
      message: /^QUIRE_WEBHOOKS_SECRETS_KEY must be 32 bytes in base64/,
    })
  }
})
