import t from 'tap'
import { ApiError } from '@quire/service-kit'
import { checkUsername, loginKey, storedEmail } from '../../src/lib/identifiers.js'
import { isHighlyRestrictive } from '../../src/lib/scripts.js'

t.test('checkUsername: NFC, or validation_error naming the refused code point', async (t) => {
  t.equal(checkUsername('zoe\u0308'), 'zo\u00eb')
  t.equal(checkUsername('bob@example.com'), 'bob@example.com')
  for (const [raw, description] of [
    ['a\u200db', 'body/username must not contain U+200D'],
    ['\u{e0061}dmin', 'body/username must not contain U+E0061'],
    ['ad min', 'body/username must not contain U+0020'],
    ['a\u034fb', 'body/username must not contain U+034F'],
    ['h\u0435llo', 'body/username must not mix letters of different scripts'],
  ] as const) {
    const error = t.throws(() => checkUsername(raw)) as ApiError
    t.match(error, { code: 'validation_error', message: description }, raw)
  }
})

t.test('loginKey: case and compatibility forms fold to one key', async (t) => {
  for (const variant of ['Admin', 'ADMIN', '\uff21\uff24\uff2d\uff29\uff2e', 'admin']) {
    t.equal(loginKey(variant), 'admin')
  }
  t.equal(loginKey('Stra\u00dfe'), 'strasse')
  t.equal(
    loginKey('\u03a3\u03bf\u03c6\u03af\u03b1\u03c2'),
    loginKey('\u03c3\u03bf\u03c6\u03af\u03b1\u03c3'),
    'final sigma',
  )
  t.equal(loginKey('\ufb01le'), 'file', 'ligature')
  t.equal(loginKey('zoe\u0308'), loginKey('ZO\u00cb'))
  t.equal(storedEmail('Zo\u00cb@Example.com'), 'zo\u00eb@example.com')
})

t.test('isHighlyRestrictive: one script, or Latin with the CJK sets', async (t) => {
  for (const name of [
    'admin',
    'admin-2_x.y',
    '\u0438\u0432\u0430\u043d',
    '\u0641\u0627\u0637\u0645\u0629\u0661',
    'a\u0301b',
  ]) {
    t.ok(isHighlyRestrictive(name), name)
  }
  t.ok(isHighlyRestrictive('abc\u7530\u4e2d\u3072\u30ab'), 'Latin, Han, Hiragana, Katakana (Japanese)')
  t.ok(isHighlyRestrictive('abc\u4e2d\u3105'), 'Latin, Han, Bopomofo')
  t.ok(isHighlyRestrictive('abc\ud55c\u4e2d'), 'Latin, Hangul, Han')
  t.ok(isHighlyRestrictive('\u30fc\u3042'), 'a mark of Hiragana and Katakana with Hiragana')
  for (const name of ['\u0430dmin', 'r\u03bfot', '\u3042\ud55c', 'abc\u0661', '\u0905a']) {
    t.notOk(isHighlyRestrictive(name), name)
  }
})
