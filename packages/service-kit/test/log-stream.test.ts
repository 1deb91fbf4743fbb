import t from 'tap'
import { batchedLogStream } from '../src/index.js'

t.test('lines of one event-loop turn go out in one write, in order; flush writes what is pending', async (t) => {
  const writes: string[] = []
  const stream = batchedLogStream({ write: (chunk: string) => writes.push(chunk) })
  stream.write('a\n')
  stream.write('b\n')
  t.same(writes, [], 'nothing written synchronously')
  await new Promise<void>((resolve) => setImmediate(resolve))
  t.same(writes, ['a\nb\n'])
  stream.write('c\n')
  stream.flush()
  t.same(writes, ['a\nb\n', 'c\n'])
  stream.flush()
  t.equal(writes.length, 2, 'an empty flush writes nothing')
})

t.test('a burst past the batch size is written at once', async (t) => {
  const writes: string[] = []
  const stream = batchedLogStream({ write: (chunk: string) => writes.push(chunk) })
  const line = `${'x'.repeat(1023)}\n`
  for (let i = 0; i < 64; i++) stream.write(line)
  t.equal(writes.length, 1)
  t.equal(writes[0]?.length, 64 * 1024)
})

t.test('after close, lines are written at once', async (t) => {
  const writes: string[] = []
  const stream = batchedLogStream({ write: (chunk: string) => writes.push(chunk) })
  stream.write('a\n')
  stream.close()
  stream.write('b\n')
  t.same(writes, ['a\n', 'b\n'])
})
