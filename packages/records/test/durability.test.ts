import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { openEmbeddedStore } from '../src/index.js'

const ACKS_BEFORE_KILL = 400
const writer = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url))

/** Runs a writer process, SIGKILLs it after `ACKS_BEFORE_KILL` acknowledgements, resolves to the acked ids. */
async function writeUntilKilled(dataDir: string, collection: string): Promise<string[]> {
  // Same loaders as this test process, so the child runs the TypeScript sources too.
  const child = spawn(process.execPath, [...process.execArgv, writer, dataDir, collection], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = once(child, 'exit')
  const acked: string[] = []
  for await (const line of createInterface({ input: child.stdout })) {
    acked.push(line)
    if (acked.length === ACKS_BEFORE_KILL) child.kill('SIGKILL')
  }
  const [, signal] = await exited
  if (signal !== 'SIGKILL') throw new Error(`writer ended with ${signal}`)
  return acked
}

t.test('acknowledged writes of two processes sharing a data dir survive SIGKILL', async (t) => {
  const dataDir = t.testdir()
  const acked = await Promise.all([writeUntilKilled(dataDir, 'first'), writeUntilKilled(dataDir, 'second')])

  const store = openEmbeddedStore(dataDir)
  t.teardown(() => store.close())
  for (const [i, name] of ['first', 'second'].entries()) {
    const items = store.collection(name)
    const stored = new Set((await items.find({}, { projection: { _id: 1 } })).map((item) => item._id))
    t.same(
      acked[i]?.filter((id) => !stored.has(id)),
      [],
      `no acknowledged id of ${name} is missing (${stored.size} stored)`,
    )
    const byIndex = await items.find({ n: { $gte: 0 } }, { sort: { n: 1 } })
    t.same(
      byIndex.map((item) => item.n),
      [...Array(stored.size).keys()],
      `the index of ${name} agrees with its records`,
    )
  }
})
