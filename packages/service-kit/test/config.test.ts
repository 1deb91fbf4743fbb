import t from 'tap'
import { Type } from '@sinclair/typebox'
import { CommonConfigSchema, ConfigError, loadConfig } from '../src/index.js'

t.test('strings become the declared types and defaults apply', async (t) => {
  const config = loadConfig(CommonConfigSchema, { QUIRE_PORT: '9090' })
  t.equal(config.QUIRE_PORT, 9090)
  t.equal(config.QUIRE_DATA_DIR, './data')
  t.equal(config.QUIRE_MONGO_URL, undefined)
})

t.test('every bad variable is listed at once', async (t) => {
  const schema = Type.Composite([CommonConfigSchema, Type.Object({ QUIRE_FLAG: Type.Boolean() })])
  try {
    loadConfig(schema, { QUIRE_PORT: 'eighty', QUIRE_MONGO_URL: 'postgres://x', QUIRE_LOG_LEVEL: 'loud' })
    t.fail('should throw')
  } catch (err) {
    t.type(err, ConfigError)
    const problems = (err as ConfigError).problems.join('\n')
    for (const name of ['QUIRE_PORT', 'QUIRE_MONGO_URL', 'QUIRE_LOG_LEVEL', 'QUIRE_FLAG']) t.match(problems, name)
  }
})
