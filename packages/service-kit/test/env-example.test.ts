import t from 'tap'
import { Type } from '@sinclair/typebox'
import { renderEnvExample } from '../src/index.js'

t.test('every variable with its default and description, in the schema order', async (t) => {
  const schema = Type.Object({
    QUIRE_B: Type.Integer({ default: 3, description: 'From the schema.' }),
    QUIRE_A: Type.Optional(Type.String()),
    QUIRE_C: Type.Boolean({ default: false }),
    QUIRE_D: Type.String({ default: 'Quire <no-reply@localhost>' }),
  })
  const text = renderEnvExample(schema, { header: 'Every variable.\nSecond line.' })
  t.equal(
    text,
    [
      '# Every variable.',
      '# Second line.',
      '',
      '# From the schema.',
      'QUIRE_B=3',
      '# QUIRE_A=',
      'QUIRE_C=false',
      'QUIRE_D="Quire <no-reply@localhost>"',
      '',
    ].join('\n'),
  )
})

t.test('a quoted value reads back the same through .env', async (t) => {
  const dir = t.testdir({
    '.env': renderEnvExample(Type.Object({ QUIRE_TEST_QUOTED: Type.String({ default: 'Quire <a@b> #1' }) }), {
      header: 'h',
    }),
  })
  t.teardown(() => {
    delete process.env.QUIRE_TEST_QUOTED
  })
  process.loadEnvFile(`${dir}/.env`)
  t.equal(process.env.QUIRE_TEST_QUOTED, 'Quire <a@b> #1')
})

t.test('long descriptions wrap', async (t) => {
  const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')
  const text = renderEnvExample(Type.Object({ QUIRE_X: Type.String({ default: 'x', description: words }) }), {
    header: 'h',
  })
  const lines = text.split('\n')
  t.ok(lines.every((line) => line.length <= 116))
  t.equal(lines.filter((line) => line.startsWith('# word')).length > 1, true)
})
