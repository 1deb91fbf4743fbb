import { writeFile } from 'node:fs/promises'
import t from 'tap'
import { quire, tempDir } from './helper.js'

t.test('bad arguments: a clear error on stderr and a non-zero exit', async (t) => {
  const env = { QUIRE_DATA_DIR: await tempDir(t) }
  const cases: [string[], RegExp][] = [
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['admin', 'create'], /missing required argument 'username'/],
    [['admin', 'create', 'x', '--environment', 'Not Valid'], /--environment <id>.*invalid/],
    [['mail', 'list', '--limit', '0'], /--limit <n>.*must be a positive integer/],
    [['backup'], /missing required argument 'dir'/],
    [['export', 'default', 'a', 'b'], /too many arguments/],
  ]
  for (const [argv, message] of cases) {
    const result = await quire(argv, env)
    t.not(result.code, 0, argv.join(' '))
    t.match(result.stderr, message, argv.join(' '))
    t.equal(result.stdout, '', 'nothing on stdout')
  }
})

t.test('help answers with exit code 0', async (t) => {
  const result = await quire(['--help'], {})
  t.equal(result.code, 0)
  t.match(result.stdout, /backup <dir>/)
})

t.test('a bad configuration is listed and fails', async (t) => {
  const result = await quire(['upgrade'], { QUIRE_MONGO_URL: 'http://nope', QUIRE_S3_BUCKET: 'x' })
  t.equal(result.code, 1)
  t.match(result.stderr, /quire: invalid configuration/)
  t.match(result.stderr, /QUIRE_MONGO_URL/)
  t.match(result.stderr, /QUIRE_S3_BUCKET/)
})

t.test('backup and restore point to the native tools for MongoDB and S3', async (t) => {
  const env = {
    QUIRE_MONGO_URL: 'mongodb://localhost:1/x',
    QUIRE_S3_ENDPOINT: 'minio',
    QUIRE_DATA_DIR: await tempDir(t),
  }
  for (const command of ['backup', 'restore']) {
    const result = await quire([command, await tempDir(t)], env)
    t.equal(result.code, 1)
    t.match(result.stderr, /mongodump/)
    t.match(result.stderr, /mc mirror/)
  }
})

t.test('--version prints the version of the package', async (t) => {
  const result = await quire(['--version'], {})
  t.equal(result.code, 0)
  t.match(result.stdout, /^\d+\.\d+\.\d+\n$/)
})

t.test('a failure outside the command line is one line on stderr, never a stack trace', async (t) => {
  const dir = await tempDir(t)
  // A data directory that is a file: the store cannot open.
  const file = `${dir}/not-a-directory`
  await writeFile(file, 'x')
  const result = await quire(['upgrade'], { QUIRE_DATA_DIR: file })
  t.equal(result.code, 2)
  t.match(result.stderr, /^quire: failed: .+\n$/)
  t.notMatch(result.stderr, /\n\s+at /)
})
