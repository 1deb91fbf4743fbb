import { Writable } from 'node:stream'
import t from 'tap'
import { createServer } from '../src/index.js'
import { defaultLogDestination, stdoutDestination, terminalDestination } from '../src/log-destination.js'

t.test('on a terminal, lines for people; otherwise, JSON lines', async (t) => {
  let text = ''
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString()
      callback()
    },
  })
  const app = createServer({ logLevel: 'info', logStream: terminalDestination(output) })
  t.after(() => app.close())
  await app.inject({ method: 'GET', url: '/health' })
  t.match(text, /INFO.*request/)
  t.match(text, /url: "\/health"/)
  t.throws(() => JSON.parse(text.split('\n')[0] ?? ''), 'not JSON')
  t.equal(defaultLogDestination(false), stdoutDestination())
  t.not(defaultLogDestination(true), stdoutDestination())
})
