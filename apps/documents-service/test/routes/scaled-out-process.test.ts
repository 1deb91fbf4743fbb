import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { TestResources } from '@quire/testing'
import { DOCUMENTS_COLLECTIONS } from '../../src/collections.js'
import { listening, open, type Received } from '../changes-helper.js'
import { build, createDefinition, createDocument, documentsOf } from '../helper.js'
import { receiver, WEBHOOKS } from '../webhooks-helper.js'

type Event = Received & { data: { _id: string; document?: Record<string, unknown> } }
const summary = (events: Received[]) =>
  (events as Event[]).map(({ event, data }) => `${event}:${String(data.document?.n ?? data._id)}`)

/**
 * The service in a process of its own on `resources`' data directory (`../replica-process.ts`), with the same
 * keys; its base URL. `stop` closes it and waits for its exit.
 */
async function replicaProcess(t: Parameters<typeof build>[0], resources: TestResources) {
  const keysFile = join(t.testdir(), 'keys.json')
  const { publicKey, secretsKey } = resources.keys
  await writeFile(keysFile, JSON.stringify({ publicKey, secretsKey: secretsKey.toString('base64') }), { mode: 0o600 })
  const script = fileURLToPath(new URL('../replica-process.ts', import.meta.url))
  const child = spawn(process.execPath, [...process.execArgv, script, resources.dataDir, keysFile], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = once(child, 'exit')
  const stop = async () => {
    child.stdin.end()
    await exited
  }
  t.teardown(stop)
  const port = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      if (out.includes('\n')) resolve(out.trim())
    })
    child.once('exit', (code) => reject(new Error(`the replica process exited (${String(code)}) before listening`)))
  })
  return { base: `http://127.0.0.1:${port}`, stop }
}

t.test('a second process on the data directory: the same log, each delivery once', async (t) => {
  const endpoint = await receiver(t)
  const a = await build(t, { config: { QUIRE_WEBHOOKS_ALLOW_PRIVATE: true } })
  const ddId = (await createDefinition(a.server, a.as.admin, { name: 'tasks' }))._id
  const hook = await a.server.inject({
    method: 'POST',
    url: WEBHOOKS,
    headers: a.as.admin,
    payload: { url: endpoint.url, events: ['document.create'] },
  })
  t.equal(hook.statusCode, 201)
  const b = await replicaProcess(t, a.resources)
  const onB = await open(b.base, ddId, a.as.admin)
  const writes = 10
  for (let n = 0; n < writes; n++) {
    if (n % 2 === 0) {
      await createDocument(a.server, a.as.admin, ddId, { n })
      continue
    }
    const created = await fetch(`${b.base}${documentsOf(ddId)}/new`, {
      method: 'POST',
      headers: { ...a.as.admin, 'content-type': 'application/json' },
      body: JSON.stringify({ n }),
    })
    t.equal(created.status, 201)
  }
  const seen = await onB.next(writes)
  t.same(
    summary(seen),
    Array.from({ length: writes }, (_, n) => `create:${n}`),
    'every write, through either process, in commit order',
  )
  onB.close()
  const resumed = await open(await listening(a.server), ddId, a.as.admin, { lastEventId: seen[writes - 3]?.id })
  t.same(summary(await resumed.next(2)), [`create:${writes - 2}`, `create:${writes - 1}`], "B's token resumes on A")
  resumed.close()

  await endpoint.received(writes)
  await Promise.all([a.server.close(), b.stop()])
  t.equal(endpoint.requests.length, writes, 'no change sent twice')
  t.equal(new Set(endpoint.requests.map((request) => request.headers['quire-delivery-id'])).size, writes)
  const stored = await DOCUMENTS_COLLECTIONS.webhookDeliveries.in(a.resources.store).find({})
  t.ok(
    stored.length === writes && stored.every((delivery) => delivery.attempts.length === 1),
    'each delivery recorded once, with one attempt',
  )
})
