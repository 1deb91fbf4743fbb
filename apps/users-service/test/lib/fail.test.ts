import t from 'tap'
import { ERROR_CODES, USER_DESCRIPTIONS } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import { RetryLater } from '../../src/lib/fail.js'

t.test('every error code has a plain-language userDescription, used unless a precise one is given', async (t) => {
  for (const code of ERROR_CODES) {
    t.match(USER_DESCRIPTIONS[code], /^[A-Z][^{}$^\\/_]+$/, `${code}: a sentence, no paths, patterns or codes`)
  }
  t.equal(fail('user_not_found', 'No user 42').userDescription, USER_DESCRIPTIONS.user_not_found)
  t.equal(fail('user_not_found', 'No user 42', 'Gone').userDescription, 'Gone')
  t.equal(fail('user_not_found', 'No user 42').message, 'No user 42', 'the technical text stays the description')
})

t.test('RetryLater: 429 rate_limited carrying the seconds to wait', async (t) => {
  const error = new RetryLater(42, 'attempts')
  t.equal(error.statusCode, 429)
  t.equal(error.retryAfter, 42)
  t.equal(error.message, 'Too many attempts; retry in 42 s')
})
