import { PassThrough } from 'node:stream'
import t from 'tap'
import { drainBody } from '../../src/lib/drain.js'

t.test('a body nobody read is read to its end when it fits the limit', async (t) => {
  const body = new PassThrough()
  const drained = drainBody(body, undefined, 10)
  body.write(Buffer.alloc(4))
  body.end(Buffer.alloc(6))
  t.equal(await drained, true)
})

t.test('past the limit it stops reading without destroying the stream', async (t) => {
  const body = new PassThrough()
  const drained = drainBody(body, undefined, 10)
  body.write(Buffer.alloc(11))
  t.equal(await drained, false)
  t.notOk(body.destroyed, 'the socket under a request must stay open for the answer')
})

t.test('a declared length past the limit, or a body already being read, is not drained', async (t) => {
  t.equal(await drainBody(new PassThrough(), 11, 10), false)
  const reading = new PassThrough()
  reading.resume()
  t.equal(await drainBody(reading, undefined, 10), false)
  const ended = new PassThrough()
  ended.end()
  ended.read()
  await new Promise((resolve) => ended.once('end', resolve))
  t.equal(await drainBody(ended, 0, 10), true, 'read to its end without flowing: nothing left to drain')
})
