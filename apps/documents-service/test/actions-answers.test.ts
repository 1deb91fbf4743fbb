import { Readable } from 'node:stream'
import t from 'tap'
import type { App } from '@quire/service-kit'
import { build, createDefinition, createDocument } from './helper.js'
import { runAction } from './actions-helper.js'
import { attachmentsOf, upload } from './attachments-helper.js'

const KIB = 1024
const MIB = 1024 * KIB

/** A body of `bytes` made as it is read, 64 KiB at a time: what was pulled from it, whether it ended or closed. */
function source(bytes: number) {
  const state = { pulled: 0, ended: false, closed: false }
  const stream = new Readable({
    read() {
      if (state.pulled >= bytes) {
        this.push(null)
        return
      }
      const size = Math.min(64 * KIB, bytes - state.pulled)
      state.pulled += size
      this.push(Buffer.alloc(size, 'x'))
    },
  })
  stream.once('end', () => (state.ended = true))
  stream.once('close', () => (state.closed = true))
  return { stream, state }
}

/** A definition of manual actions, one per `name: source`, and a document to run them on. */
async function actionsOn(server: App, as: Record<string, string>, sources: Record<string, string>) {
  const actions = Object.entries(sources).map(([name, source]) => ({ name, triggers: ['manual'], source }))
  await createDefinition(server, as, { name: 'calls', actions })
  const document = await createDocument(server, as, 'calls')
  return (name: string) => runAction(server, as, 'calls', document._id, name)
}

t.test('an answer over the limit fails the call unread (length declared) or as it passes it', async (t) => {
  const bodies: Record<string, ReturnType<typeof source>> = {}
  // A run's memory of 2 MiB: an answer may be 1 MiB.
  const { server, as } = await build(t, {
    config: { QUIRE_SCRIPT_MEMORY_MB: 2 },
    prepare: (server) => {
      server.get('/test/declared', (_request, reply) => {
        bodies.declared = source(3 * MIB)
        return reply
          .type('text/plain')
          .header('content-length', 3 * MIB)
          .send(bodies.declared.stream)
      })
      server.get('/test/undeclared', (_request, reply) => {
        bodies.undeclared = source(3 * MIB)
        return reply.type('text/plain').send(bodies.undeclared.stream)
      })
    },
  })
  const run = await actionsOn(server, as.admin, {
    declared: 'try { await REST.call("test/declared") } catch (error) { return String(error) }\nreturn "read"',
    undeclared: 'try { await REST.call("test/undeclared") } catch (error) { return String(error) }\nreturn "read"',
  })

  const declared = await run('declared')
  t.equal(declared.statusCode, 200)
  t.match(declared.json().data.result, `REST.call answer of ${3 * MIB} bytes is over the limit of ${MIB}`)
  t.ok(bodies.declared!.state.pulled < MIB, 'refused before reading it')
  t.ok(bodies.declared!.state.closed && !bodies.declared!.state.ended, 'its source was stopped')

  const undeclared = await run('undeclared')
  t.equal(undeclared.statusCode, 200)
  t.match(undeclared.json().data.result, `REST.call answer is over the limit of ${MIB} bytes`)
  t.ok(bodies.undeclared!.state.pulled < 2 * MIB, 'reading stopped near the limit')
  t.ok(bodies.undeclared!.state.closed && !bodies.undeclared!.state.ended, 'its source was stopped')
})

t.test('answers that do not fit in the budget together are read one after the other', async (t) => {
  const bodies: Record<string, ReturnType<typeof source>> = {}
  /** What the other answer's source had given when each one's source ended. */
  const otherAtEnd: Record<string, number> = {}
  const size = 600 * KIB
  // A budget of 1 MiB for the whole process, two answers of 600 KiB at once.
  const { server, as } = await build(t, {
    config: { QUIRE_SCRIPT_MEMORY_MB: 4, QUIRE_SCRIPT_ANSWER_BUDGET_MB: 1 },
    prepare: (server) => {
      server.get<{ Params: { name: 'a' | 'b' } }>('/test/part/:name', (request, reply) => {
        const { name } = request.params
        const body = source(size)
        bodies[name] = body
        body.stream.once('end', () => (otherAtEnd[name] = bodies[name === 'a' ? 'b' : 'a']?.state.pulled ?? 0))
        return reply.type('text/plain').header('content-length', size).send(body.stream)
      })
    },
  })
  const run = await actionsOn(server, as.admin, {
    both: 'const answers = await Promise.all([REST.call("test/part/a"), REST.call("test/part/b")])\nreturn answers.map((each) => each.length)',
  })

  const both = await run('both')
  t.equal(both.statusCode, 200)
  t.same(both.json().data.result, [size, size], 'both answered, whole')
  const [first, second] = Object.entries(otherAtEnd).map(([, pulled]) => pulled)
  t.ok(first! < size / 2, 'the second answer was not read while the first was held')
  t.equal(second, size, 'the first was read whole before the second')
})

t.test('an answer being read as its run ends is dropped: its room is given back', async (t) => {
  const { server, as } = await build(t, {
    // A wall long enough for the run that must succeed after it on a busy machine.
    config: { QUIRE_SCRIPT_MEMORY_MB: 4, QUIRE_SCRIPT_ANSWER_BUDGET_MB: 1, QUIRE_SCRIPT_WALL_MS: 3_000 },
    prepare: (server) => {
      // An answer that takes the whole budget and never ends: every other call waits for room.
      server.get('/test/endless', (_request, reply) =>
        reply
          .type('text/plain')
          .header('content-length', MIB)
          .send(new Readable({ read() {} })),
      )
      server.get('/test/small', (_request, reply) => reply.type('text/plain').send('small'))
    },
  })
  const run = await actionsOn(server, as.admin, {
    hold: 'await REST.call("test/endless")',
    small: 'return await REST.call("test/small")',
  })
  const held = await run('hold')
  t.equal(held.statusCode, 422)
  t.match(held.json().description, 'failed (wall)')
  // The held answer was dropped with its run: the budget is whole again.
  const small = await run('small')
  t.equal(small.statusCode, 200)
  t.equal(small.json().data.result, 'small')
})

t.test(
  "the issue's repro, scaled down: 24 downloads at once, over the limit refused, under it read in turn",
  async (t) => {
    // Answers of 1 MiB at most, 1 MiB for every run's answers at once.
    const { server, as } = await build(t, { config: { QUIRE_SCRIPT_MEMORY_MB: 2, QUIRE_SCRIPT_ANSWER_BUDGET_MB: 1 } })
    const download = [
      'const path = context.input.path',
      // REST.call answers synchronously, as the platform's does: a failed call throws where it is made.
      'const calls = Array.from({ length: 24 }, () => {',
      '  try { return "read " + REST.call(path).length } catch (error) { return String(error) }',
      '})',
      'return [...new Set(calls)]',
    ].join('\n')
    await createDefinition(server, as.admin, {
      name: 'files',
      actions: [{ name: 'download', triggers: ['manual'], source: download }],
    })
    const document = await createDocument(server, as.member, 'files')
    const attach = async (size: number) => {
      const path = attachmentsOf('files', document._id)
      const saved = await upload(server, as.member, 'files', document._id, `valuePath=f${size}`, [
        { name: 'big.txt', content: 'x'.repeat(size) },
      ])
      t.equal(saved.statusCode, 201)
      const [attachment] = saved.json().data.attachments as { _id: string }[]
      return `${path.slice(1)}/${attachment!._id}`
    }
    const large = await attach(3 * MIB)
    const small = await attach(300 * KIB)

    const refused = await runAction(server, as.member, 'files', document._id, 'download', { path: large })
    t.equal(refused.statusCode, 200)
    t.same(refused.json().data.result, [`Error: REST.call answer of ${3 * MIB} bytes is over the limit of ${MIB}`])
    const read = await runAction(server, as.member, 'files', document._id, 'download', { path: small })
    t.equal(read.statusCode, 200)
    t.same(read.json().data.result, [`read ${300 * KIB}`], 'all 24 read whole, within the budget')
  },
)
