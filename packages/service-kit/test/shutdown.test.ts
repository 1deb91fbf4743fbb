import { once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { createServer, type App } from '../src/index.js'

const REQUEST = (path: string) => `GET ${path} HTTP/1.1\r\nHost: quire\r\nConnection: keep-alive\r\n\r\n`

/**
 * A listening server with `GET /slow`, which answers only once `release()` is called, and `GET /fast`;
 * `arrived` resolves when `/slow` is being handled, `closing` once `close()` has begun.
 */
async function serve(t: Test, shutdownTimeout: number) {
  // Past any test's run: only the shutdown deadline can end a request here.
  const app: App = createServer({ logLevel: 'silent', shutdownTimeout, requestTimeout: 3_600_000 })
  let release = () => {}
  let arrived = () => {}
  const slowArrived = new Promise<void>((resolve) => (arrived = resolve))
  const released = new Promise<void>((resolve) => (release = resolve))
  app.get('/slow', async () => {
    arrived()
    await released
    return { status: 'ok' }
  })
  app.get('/fast', async () => ({ status: 'ok' }))
  let began = () => {}
  const closing = new Promise<void>((resolve) => (began = resolve))
  app.addHook('preClose', (done) => {
    began()
    done()
  })
  t.teardown(() => {
    release()
    return app.close()
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  /** Resolves when the server has read a request for `path` (answered or not). */
  const received = (path: string) =>
    new Promise<void>((resolve) => {
      const seen = (request: IncomingMessage) => {
        if (request.url !== path) return
        app.server.off('request', seen)
        resolve()
      }
      app.server.on('request', seen)
    })
  return { app, port, arrived: slowArrived, release, closing, received }
}

/** A raw client connection that keeps what it received. */
function client(port: number) {
  const socket = connect({ port, host: '127.0.0.1' })
  let received = ''
  socket.setEncoding('utf8').on('data', (data: string) => (received += data))
  const ended = once(socket, 'close').then(() => 'the socket ended')
  return { socket, ended, received: () => received }
}

t.test('a request still in progress at the shutdown deadline is ended, and close() resolves', async (t) => {
  const { app, port, arrived } = await serve(t, 50)
  const { socket, ended, received } = client(port)
  socket.write(REQUEST('/slow'))
  await arrived

  const order: string[] = []
  const closed = app.close().then(() => order.push('close resolved'))
  const end = ended.then((what) => order.push(what))
  await Promise.all([closed, end])
  t.same(order.sort(), ['close resolved', 'the socket ended'])
  t.equal(received(), '', 'the request got no answer: its connection was ended')
})

t.test('a request that finishes within the deadline is answered, then its kept-alive connection ends', async (t) => {
  const { app, port, arrived, release, closing } = await serve(t, 60_000)
  const { socket, ended, received } = client(port)
  socket.write(REQUEST('/slow'))
  await arrived

  const closed = app.close()
  await closing
  release()
  t.equal(await ended, 'the socket ended', 'not kept open past its last answer')
  await closed
  t.match(received(), /^HTTP\/1\.1 200 /)
})

t.test('a new request on a kept-alive connection while closing gets 503 in the envelope', async (t) => {
  const server = await serve(t, 60_000)
  const { socket, ended, received } = client(server.port)
  socket.write(REQUEST('/slow'))
  await server.arrived

  const closed = server.app.close()
  await server.closing
  const fast = server.received('/fast')
  socket.write(REQUEST('/fast'))
  await fast
  server.release()
  await ended
  await closed

  const [first = '', second = ''] = received().split(/(?=HTTP\/1\.1 )/)
  t.match(first, /^HTTP\/1\.1 200 /, 'the request in progress is answered')
  t.match(second, /^HTTP\/1\.1 503 /)
  t.match(second, /\r\nconnection: close\r\n/i)
  const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>
  t.match(body, { status: 'error', error: 'service_unavailable' })
})
