import { chmod, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { startApp } from './e2e/processes.js'

const ENV = { QUIRE_ADMIN_PASSWORD: 'correct horse battery', QUIRE_LOG_LEVEL: 'info' }
const TIGHTENED = /readable by other local users/

/** Every folder and file of the data dir and its mode, by path relative to it. */
async function modes(dataDir: string): Promise<Record<string, number>> {
  const entries = await readdir(dataDir, { recursive: true, withFileTypes: true })
  const paths = ['.', ...entries.map((entry) => join(entry.parentPath, entry.name).slice(dataDir.length + 1))]
  return Object.fromEntries(
    await Promise.all(paths.map(async (path) => [path, (await stat(join(dataDir, path))).mode & 0o777] as const)),
  )
}

const ownerOnly = (all: Record<string, number>) =>
  Object.entries(all).filter(([, mode]) => mode !== 0o700 && mode !== 0o600)

t.test('the all-in-one server makes its data dir owner-only: store, keys, files', async (t) => {
  const dataDir = join(t.testdir(), 'data')
  const server = await startApp('gateway', { ...ENV, QUIRE_DATA_DIR: dataDir })
  t.teardown(server.stop)
  const all = await modes(dataDir)
  for (const path of ['.', 'records', 'keys', 'files', 'files/tmp']) t.equal(all[path], 0o700, path)
  for (const path of ['records/data.mdb', 'records/lock.mdb', 'keys/jwt-private.pem', 'keys/secrets.key']) {
    t.equal(all[path], 0o600, path)
  }
  t.same(ownerOnly(all), [], 'nothing else readable by others')
  t.notOk(
    server.logged.some((line) => TIGHTENED.test(line)),
    'a new data dir has nothing to tighten',
  )
})

t.test('a data dir left 0755/0644 by an earlier version is tightened at start, and the log says so', async (t) => {
  const dataDir = t.testdir()
  const first = await startApp('gateway', { ...ENV, QUIRE_DATA_DIR: dataDir })
  await first.stop()
  for (const [path, mode] of Object.entries(await modes(dataDir))) {
    await chmod(join(dataDir, path), mode === 0o700 ? 0o755 : 0o644)
  }

  const second = await startApp('gateway', { ...ENV, QUIRE_DATA_DIR: dataDir })
  const warnings = second.logged.filter((line) => TIGHTENED.test(line))
  t.equal(warnings.length, 1, 'one line')
  t.match(JSON.parse(warnings[0] ?? '{}'), {
    level: 40,
    paths: [
      dataDir,
      join(dataDir, 'records'),
      join(dataDir, 'records', 'data.mdb'),
      join(dataDir, 'records', 'lock.mdb'),
    ],
  })
  await second.stop()
  const all = await modes(dataDir)
  for (const path of ['.', 'records', 'keys', 'files', 'files/tmp']) t.equal(all[path], 0o700, path)
  for (const path of ['records/data.mdb', 'records/lock.mdb']) t.equal(all[path], 0o600, path)

  const third = await startApp('gateway', { ...ENV, QUIRE_DATA_DIR: dataDir })
  t.teardown(third.stop)
  t.notOk(
    third.logged.some((line) => TIGHTENED.test(line)),
    'said once: nothing to tighten the next time',
  )
})

t.test('a start says where the API, the console and the API reference are, and how to reset a password', async (t) => {
  const server = await startApp('gateway', { ...ENV, QUIRE_DATA_DIR: join(t.testdir(), 'data') })
  t.teardown(server.stop)
  const ready = /^Quire is ready: /
  const line = server.logged.find((logged) => ready.test(logged)) ?? (await server.waitForLog(ready))
  const base = `http://localhost:${server.port}`
  t.equal(
    line,
    `Quire is ready: the API at ${base}/api/v2, the console at ${base}/console, the API reference at ${base}/docs.`,
  )
  const consolePage = await fetch(`${base}/console`)
  t.equal(consolePage.status, 200, 'the console is where it says')
  const next = server.logged[server.logged.indexOf(line) + 1] ?? (await server.waitForLog(/^Forgot/))
  t.match(next, /npx quire password reset admin/)
})
