import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import { newObjectId } from '@quire/records'
import { build, createDefinition, createDocument, documentsOf, storedDocuments, type Built } from '../helper.js'

/**
 * Environment A's definition of 3,000 documents in three categories, and a list of one category sorted on
 * another field: each such request reads a thousand documents through the index, in one go, the costly kind of
 * work the store shares out between environments.
 */
async function neighbourhood(t: Parameters<typeof build>[0], config: Parameters<typeof build>[1] = {}) {
  const built = await build(t, config)
  const { server, as, resources } = built
  const definition = await createDefinition(server, as.admin, { name: 'items', indexes: [{ fields: { category: 1 } }] })
  const now = new Date().toISOString()
  await resources.store.transaction(async (tx) => {
    const documents = storedDocuments(tx, definition._id)
    for (let n = 0; n < 3000; n++) {
      await documents.insertOne({
        _id: newObjectId(),
        _createdOn: now,
        _createdByUserId: 'seed',
        _lastModifiedOn: now,
        _lastModifiedByUserId: 'seed',
        _documentDefinitionId: definition._id,
        _environmentId: 'env_a',
        _hash: `h${n}`,
        status: 'ready',
        accessGroups: [],
        category: `c${n % 3}`,
        // Longer than the store keeps sort values of: each list reads its thousand documents again.
        title: `${'item '.repeat(14)}${(n * 7919) % 3000}`,
      })
    }
  })
  const scan = () =>
    server.inject({
      method: 'GET',
      url: `${documentsOf('items')}?limit=5&query=${q({ category: 'c1' })}&sort=${q({ title: 1 })}`,
      headers: as.admin,
    })
  return { ...built, scan }
}

/** Environment B's one note, and a read of it by `_id`: the cheapest request there is. */
async function noteOfB({ server, as }: Built) {
  await createDefinition(server, as.adminB, { name: 'notes' })
  const note = await createDocument(server, as.adminB, 'notes', { title: 'mine' })
  return () => server.inject({ method: 'GET', url: `${documentsOf('notes')}/${note._id}`, headers: as.adminB })
}

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value))

t.test('an environment alone runs its costly reads without queueing or refusals', async (t) => {
  const { scan } = await neighbourhood(t, { config: { QUIRE_WORK_QUEUE_PER_ENVIRONMENT: 1 } })
  const answers = await Promise.all(Array.from({ length: 6 }, scan))
  t.same(
    answers.map((response) => response.statusCode),
    [200, 200, 200, 200, 200, 200],
  )
  t.equal(answers[0]?.json().data.length, 5)
})

t.test("a cheap read of another environment is answered before the neighbour's costly reads drain", async (t) => {
  const built = await neighbourhood(t)
  const { scan } = built
  const readNote = await noteOfB(built)
  const order: string[] = []
  const labelled = async (label: string, answer: ReturnType<typeof scan>) => {
    const response = await answer
    order.push(label)
    return response
  }
  // B's first read makes B an environment at work, as a caller already reading would.
  const first = labelled('B first', readNote())
  const scans = Array.from({ length: 8 }, (_, i) => labelled(`A${i}`, scan()))
  // B reads again once A's first answer is out: the other seven have reached the store by then.
  const read = Promise.race(scans).then(() => labelled('B', readNote()))
  const answers = await Promise.all([first, ...scans, read])
  t.same(
    answers.map((response) => response.statusCode),
    Array(10).fill(200),
    "every read is answered, the neighbour's too",
  )
  const afterB = order.slice(order.indexOf('B') + 1)
  t.ok(
    afterB.filter((label) => label.startsWith('A')).length >= 4,
    `B's read came before most of A's queue (${order.join(', ')})`,
  )
})

t.test("past its queue limit an environment's costly reads are refused with 429 and Retry-After", async (t) => {
  const built = await neighbourhood(t, { config: { QUIRE_WORK_QUEUE_PER_ENVIRONMENT: 2 } })
  const { scan } = built
  const readNote = await noteOfB(built)
  // B reads on while A's scans arrive: B is at work whenever one of A's is admitted, however slow the machine.
  t.equal((await readNote()).statusCode, 200)
  const scans = { done: false }
  const reading = (async () => {
    const statuses: number[] = []
    do {
      statuses.push((await readNote()).statusCode)
      // An injected request never leaves the microtask queue: a client over a socket gives the loop its turns.
      await nextTurn()
    } while (!scans.done)
    return statuses
  })()
  const answers = await Promise.all(Array.from({ length: 8 }, scan))
  scans.done = true
  const reads = await reading
  t.same(reads, Array(reads.length).fill(200), "the other environment's reads are never refused")
  const refused = answers.filter((response) => response.statusCode === 429)
  t.ok(refused.length > 0, 'some of A are refused')
  // The first runs and its next slice waits, with one more read: the limit of two waiting.
  t.ok(answers.filter((response) => response.statusCode === 200).length >= 2, 'those within the limit are answered')
  t.same(
    answers.filter((response) => response.statusCode !== 200 && response.statusCode !== 429),
    [],
    'nothing else',
  )
  for (const response of refused) {
    t.equal(response.headers['retry-after'], '1')
    t.match(response.json(), { status: 'error', error: 'rate_limited', description: /env_a .*waiting/ })
  }
})
