import t from 'tap'
import { hashPassword, verifyPassword } from '../../src/lib/passwords.js'

t.test('scrypt hashes carry their parameters and a fresh salt', async (t) => {
  const hash = await hashPassword('correct horse')
  t.match(hash, /^scrypt\$32768\$8\$1\$[\w+/=]+\$[\w+/=]+$/)
  t.not(await hashPassword('correct horse'), hash, 'salted')
  t.equal(await verifyPassword('correct horse', hash), true)
  t.equal(await verifyPassword('wrong horse', hash), false)
})

t.test('nothing stored, or not a scrypt hash, never verifies', async (t) => {
  for (const stored of [undefined, '', 'plain', 'md5$x$y', 'scrypt$1$1$1$$']) {
    t.equal(await verifyPassword('', stored), false, String(stored))
  }
})
