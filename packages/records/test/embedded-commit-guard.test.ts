import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const fixture = fileURLToPath(new URL('./fixtures/failed-commit-rejections.ts', import.meta.url))

t.test("lmdb's unheard rejections of a failed commit are dropped; any other still ends the process", async (t) => {
  const child = spawnSync(process.execPath, [...process.execArgv, fixture, t.testdir()], { encoding: 'utf8' })
  t.equal(child.stdout, 'survived\n', 'the failed commit did not end the process; the unrelated rejection did')
  t.equal(child.status, 1)
  t.match(child.stderr, /an unrelated bug/)
})
