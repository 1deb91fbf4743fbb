import { join } from 'node:path'
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { CommonConfigSchema, ConfigError, createServer, loadConfig, processEnvironment } from '../src/index.js'

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

t.test(
  'NAME_FILE gives a variable the content of a file; NAME itself wins; an unreadable file is listed',
  async (t) => {
    const dir = t.testdir({ 'public.pem': '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n' })
    const fromFile = loadConfig(CommonConfigSchema, { QUIRE_JWT_PUBLIC_KEY_FILE: join(dir, 'public.pem') })
    t.equal(fromFile.QUIRE_JWT_PUBLIC_KEY, '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----')
    const given = loadConfig(CommonConfigSchema, {
      QUIRE_JWT_PUBLIC_KEY: 'given',
      QUIRE_JWT_PUBLIC_KEY_FILE: join(dir, 'public.pem'),
    })
    t.equal(given.QUIRE_JWT_PUBLIC_KEY, 'given')
    t.throws(() => loadConfig(CommonConfigSchema, { QUIRE_JWT_PRIVATE_KEY_FILE: join(dir, 'missing.pem') }), {
      name: 'ConfigError',
      message: /QUIRE_JWT_PRIVATE_KEY_FILE: cannot read .*missing\.pem \(ENOENT\)/,
    })
  },
)

t.test('a NAME_FILE value loses one final line ending (LF or CRLF), and nothing else', async (t) => {
  const files = {
    'echo.txt': 'a-token\n',
    'windows.txt': 'a-token\r\n',
    'two.txt': 'a-token\n\n',
    'bare.txt': 'a-token',
    'spaces.txt': ' a-token \n',
  }
  const dir = t.testdir(files)
  const read = (file: string) => loadConfig(CommonConfigSchema, { QUIRE_MONGO_DB_FILE: join(dir, file) }).QUIRE_MONGO_DB
  t.same(Object.keys(files).map(read), ['a-token', 'a-token', 'a-token\n', 'a-token', ' a-token '])
})

t.test('a metrics token written with `echo` into QUIRE_METRICS_TOKEN_FILE opens /metrics', async (t) => {
  const token = 'metrics-token-0123456789'
  const dir = t.testdir({ token: `${token}\n` })
  const config = loadConfig(CommonConfigSchema, { QUIRE_METRICS_TOKEN_FILE: join(dir, 'token') })
  const app = createServer({ logLevel: 'silent', metricsToken: config.QUIRE_METRICS_TOKEN })
  t.after(() => app.close())
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } })
  t.equal(res.statusCode, 200)
  t.match(res.body, /^# HELP /m)
})

t.test('.env completes the environment: a variable already set wins, a missing file is fine', async (t) => {
  const dir = t.testdir({ '.env': 'QUIRE_TEST_FROM_FILE=file\nQUIRE_TEST_BOTH=file\n' })
  process.env.QUIRE_TEST_BOTH = 'real'
  t.teardown(() => {
    delete process.env.QUIRE_TEST_FROM_FILE
    delete process.env.QUIRE_TEST_BOTH
  })
  const env = processEnvironment(join(dir, '.env'))
  t.equal(env.QUIRE_TEST_FROM_FILE, 'file')
  t.equal(env.QUIRE_TEST_BOTH, 'real')
  t.equal(processEnvironment(join(dir, 'absent.env')), process.env)
})
