import { once } from 'node:events'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import t from 'tap'
import { lingeringClose, type LingerBounds } from '../src/lingering-close.js'

const ANSWER = 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'
const chunk = Buffer.alloc(64 * 1024, 1)
/** Bounds no test reaches unless it lowers one. */
const BOUNDLESS: LingerBounds = { bytes: 1024 ** 3, ms: 60_000 }

interface Options {
  /** The client goes on sending after the server's FIN. */
  allowHalfOpen?: boolean
  /** The first reader pauses the socket before the close (as a request body nobody reads does). */
  paused?: boolean
}

/**
 * A client connected to a server that answers at the first bytes it reads and closes lingering; `reads` counts
 * the reads of the socket's first reader (Node's HTTP parser in the service).
 */
async function answeredEarly(t: { teardown(fn: () => unknown): void }, bounds: LingerBounds, options: Options = {}) {
  const server = createServer({ allowHalfOpen: true })
  t.teardown(() => server.close())
  let reads = 0
  const accepted = new Promise<Socket>((resolve) =>
    server.once('connection', (socket) => {
      socket.on('data', () => {
        if (++reads > 1) return
        if (options.paused) socket.pause()
        socket.write(ANSWER)
        lingeringClose(socket, bounds)
      })
      resolve(socket)
    }),
  )
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const client = connect({ port, host: '127.0.0.1', allowHalfOpen: options.allowHalfOpen ?? false })
  t.teardown(() => client.destroy())
  const received: Buffer[] = []
  client.on('data', (data: Buffer) => received.push(data))
  const failure = new Promise<(Error & { code?: string }) | undefined>((resolve) => {
    client.once('error', resolve)
    client.once('close', () => resolve(undefined))
  })
  return { client, serverSide: await accepted, received, failure, reads: () => reads }
}

const answered = (received: Buffer[]) => Buffer.concat(received).toString().includes('\r\n\r\n')

const drainedOrClosed = (client: Socket) =>
  new Promise<void>((resolve) => {
    const done = () => {
      client.off('drain', done).off('close', done)
      resolve()
    }
    client.on('drain', done).on('close', done)
  })

/** Writes 64 KiB chunks while `more()` holds and the socket is open (yielding whenever its buffer is full). */
async function send(client: Socket, more: () => boolean): Promise<void> {
  while (more() && !client.destroyed) {
    if (!client.write(chunk)) await drainedOrClosed(client)
  }
}

for (const [name, paused] of [
  ['', false],
  [' (a body nobody read paused the socket)', true],
] as const) {
  t.test(`a client still sending reads the whole answer, and the connection closes once it stops${name}`, async (t) => {
    const { client, serverSide, received, failure, reads } = await answeredEarly(t, BOUNDLESS, { paused })
    const closed = once(serverSide, 'close')
    await send(client, () => !answered(received))
    client.end()
    t.equal(await failure, undefined, 'no reset reached the client')
    t.equal(Buffer.concat(received).toString(), ANSWER, 'the answer, then the end of the connection')
    t.same(await closed, [false], 'the server closed it without an error')
    t.equal(reads(), 1, 'nothing sent after the answer reached the first reader')
  })
}

t.test('a client that keeps sending is cut off past the byte bound', async (t) => {
  const bounds = { ...BOUNDLESS, bytes: 256 * 1024 }
  const { client, serverSide, failure } = await answeredEarly(t, bounds, { allowHalfOpen: true })
  const closed = once(serverSide, 'close')
  await send(client, () => true)
  await closed
  t.match((await failure)?.code, /^(ECONNRESET|EPIPE)$/, 'the client is reset')
})

t.test('a client that neither sends nor closes is cut off after the time bound', async (t) => {
  const bounds = { ...BOUNDLESS, ms: 1 }
  const { client, serverSide, received } = await answeredEarly(t, bounds, { allowHalfOpen: true })
  const closed = once(serverSide, 'close')
  const ended = once(client, 'end')
  client.write('x')
  await closed
  await ended
  t.equal(Buffer.concat(received).toString(), ANSWER, 'the answer, then the end of the connection')
})
