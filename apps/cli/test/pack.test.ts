import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { installPacked } from '@quire/testing'

const execute = promisify(execFile)
/** Each command of the packed CLI ends on its own: a hang fails here, naming the command. */
const run = (file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  execute(file, args, { ...options, timeout: 120_000 })
// Packing, then installing from the registry (re2 builds from source) takes minutes on a busy machine.
t.setTimeout(900_000)
const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

t.test('the packed CLI installs into an empty folder and runs there', async (t) => {
  const folder = await installPacked(t, ROOT, '@quire/cli')
  const quire = join(folder, 'node_modules', '.bin', 'quire')

  const version = await run(quire, ['--version'], { cwd: folder })
  t.equal(version.stdout.trim(), '0.1.0')

  const dataDir = await mkdtemp(join(tmpdir(), 'quire-packed-'))
  t.teardown(() => rm(dataDir, { recursive: true, force: true }))
  const env = { ...process.env, QUIRE_DATA_DIR: dataDir }
  const created = await run(quire, ['admin', 'create', 'packed-admin'], { cwd: folder, env })
  t.match(created.stdout, /packed-admin/)

  const backup = join(dataDir, '..', `${dataDir.split('/').pop()}-backup`)
  t.teardown(() => rm(backup, { recursive: true, force: true }))
  await run(quire, ['backup', backup], { cwd: folder, env })
  t.ok((await readdir(backup)).length > 0, 'the backup folder holds the store')
})
