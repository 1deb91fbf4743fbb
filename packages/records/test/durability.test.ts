import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { openEmbeddedStore } from '../src/index.js'

const ACKS_BEFORE_KILL = 300

t.test('acknowledged writes survive SIGKILL', async (t) => {
  const dataDir = t.testdir()
  const writer = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url))
  // Same loaders as this test process, so the child runs the TypeScript sources too.
  const child = spawn(process.execPath, [...process.execArgv, writer, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] })
  const exited = once(child, 'exit')
  const acked: string[] = []
  for await (const line of createInterface({ input: child.stdout })) {
    acked.push(line)
    if (acked.length === ACKS_BEFORE_KILL) child.kill('SIGKILL')
  }
  const [, signal] = await exited
  t.equal(signal, 'SIGKILL')

  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  const items = store.collection('items')
  const stored = new Set((await items.find({}, { projection: { _id: 1 } })).map((item) => item._id))
  t.ok(stored.size >= acked.length, `${stored.size} stored, ${acked.length} acknowledged`)
  t.same(acked.filter((id) => !stored.has(id)), [], 'no acknowledged id is missing')
  const byIndex = await items.find({ n: { $gte: 0 } }, { sort: { n: 1 } })
  t.same(byIndex.map((item) => item.n), [...Array(stored.size).keys()], 'the index agrees with the records')
})
