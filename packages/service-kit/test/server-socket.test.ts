import { connect, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { USER_DESCRIPTIONS, type ErrorCode } from '@quire/contracts'
import { createServer, type App } from '../src/index.js'

const BODY_LIMIT = 1024
const CHUNK = Buffer.alloc(64 * 1024, 0x20)
/** What a lingering close reads and drops at most: a client that can send this much was read on, not refused. */
const LINGER_BYTES = 16 * 1024 * 1024
/** Runs of each refused-body test (a reset may come in any of them, more likely on a busy machine). */
const RUNS = 30

interface Answer {
  status: number
  headers: Record<string, string>
  body: string
}

/** The complete HTTP answers in `bytes`, in order (bodies sized by `Content-Length`). */
function answersIn(bytes: Buffer): Answer[] {
  const answers: Answer[] = []
  let start = 0
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', start)
    if (end === -1) return answers
    const [statusLine = '', ...lines] = bytes.subarray(start, end).toString('latin1').split('\r\n')
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    )
    const next = end + 4 + Number(headers['content-length'])
    if (next > bytes.length) return answers
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: bytes.subarray(end + 4, next).toString() })
    start = next
  }
}

/** A client connection (it never closes its side unless told) that keeps its answers and how it ended. */
function client(port: number) {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true })
  let received = Buffer.alloc(0)
  socket.on('data', (data: Buffer) => {
    received = Buffer.concat([received, data])
  })
  const ended = new Promise<(Error & { code?: string }) | undefined>((resolve) => {
    socket.once('error', resolve)
    socket.once('close', () => resolve(undefined))
  })
  const answers = () => answersIn(received)
  /** Resolves once `count` answers are in (or the connection is gone). */
  const answered = (count: number) =>
    new Promise<Answer[]>((resolve) => {
      const check = () => {
        if (answers().length < count && !socket.destroyed) return
        socket.off('data', check).off('close', check)
        resolve(answers())
      }
      socket.on('data', check).on('close', check)
      check()
    })
  return { socket, ended, answers, answered }
}

const writable = (socket: Socket) =>
  new Promise<void>((resolve) => {
    const done = () => {
      socket.off('drain', done).off('close', done)
      resolve()
    }
    socket.on('drain', done).on('close', done)
  })

/** Writes `chunk()` while `more()` holds and the socket is open, yielding whenever its buffer is full. */
async function sendWhile(socket: Socket, more: () => boolean, chunk: () => Buffer | string): Promise<void> {
  while (more() && !socket.destroyed) {
    if (!socket.write(chunk())) await writable(socket)
  }
}

/** Sends up to `LINGER_BYTES` after the server closed, then closes: Node's own close refuses them (a reset). */
async function refusesWhatFollows(t: Test, socket: Socket, ended: Promise<{ code?: string } | undefined>) {
  let sent = 0
  const chunk = () => {
    sent += CHUNK.length
    return CHUNK
  }
  await sendWhile(socket, () => sent < LINGER_BYTES, chunk)
  socket.end()
  t.match((await ended)?.code, /^(EPIPE|ECONNRESET)$/, 'nothing read what the client sent after the answer')
}

async function listening(t: Test, routes: (app: App) => void = () => {}) {
  const app = createServer({ logLevel: 'silent', bodyLimit: BODY_LIMIT })
  app.post('/echo', async (request) => ({ status: 'ok', data: request.body ?? null }))
  routes(app)
  t.after(() => app.close())
  return Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port)
}

const head = (framing: string, path = '/echo') =>
  `POST ${path} HTTP/1.1\r\nhost: quire.test\r\ncontent-type: application/json\r\n${framing}\r\n`

/** How a too-large body is sent: its head, then each chunk until the client has its answer. */
const tooLarge = {
  'declared larger than the limit': { head: head('content-length: 104857600\r\n'), chunk: () => CHUNK },
  'sent chunked past the limit': {
    head: head('transfer-encoding: chunked\r\n'),
    chunk: () => `${CHUNK.length.toString(16)}\r\n${CHUNK.toString()}\r\n`,
  },
}

for (const [name, body] of Object.entries(tooLarge)) {
  t.test(`a body ${name}: the client still sending reads its 413, and no reset (${RUNS} runs)`, async (t) => {
    const port = await listening(t)
    const outcomes: string[] = []
    for (let run = 0; run < RUNS; run++) {
      const { socket, ended, answers } = client(port)
      socket.write(body.head)
      await sendWhile(socket, () => answers().length === 0, body.chunk)
      socket.end()
      const failure = await ended
      const [answer] = answers()
      const read = answer
        ? `${answer.status} ${answer.headers.connection} ${(JSON.parse(answer.body) as { error: string }).error}`
        : 'no answer'
      outcomes.push(failure === undefined ? read : `${read}, reset (${failure.code})`)
    }
    t.same(outcomes, Array(RUNS).fill('413 close payload_too_large'), 'the answer, then the end of the connection')
  })
}

t.test('a bad JSON body read to its end: 400, and the connection closes at once as before', async (t) => {
  const port = await listening(t)
  const { socket, ended, answered } = client(port)
  const closedByServer = new Promise((resolve) => socket.once('end', resolve))
  socket.write(`${head('content-length: 5\r\n')}{"a":`)
  const [answer] = await answered(1)
  t.match(answer, { status: 400, headers: { connection: 'close' }, body: /"error":"validation_error"/ })
  await closedByServer
  // The client has not closed its side: a lingering close would read on; Node's own refuses what comes.
  await refusesWhatFollows(t, socket, ended)
})

t.test('answered before its body ends, on a connection kept alive: the next requests are answered', async (t) => {
  const port = await listening(t, (app) =>
    app.post('/early', {
      onRequest: (_request, reply, done) => {
        void reply.code(401).send({ status: 'error', error: 'unauthorized' })
        done()
      },
      handler: async () => ({ status: 'ok', data: 'never' }),
    }),
  )
  const { socket, ended, answered } = client(port)
  const closedByServer = new Promise((resolve) => socket.once('end', resolve))
  socket.write(`${head('content-length: 18\r\n', '/early')}{"a":`)
  const [early] = await answered(1)
  t.match(early, { status: 401, headers: { connection: 'keep-alive' } })
  socket.write('"0123456789"}')
  socket.write(`${head('content-length: 7\r\n')}{"a":1}`)
  t.match((await answered(2))[1], {
    status: 200,
    headers: { connection: 'keep-alive' },
    body: '{"status":"ok","data":{"a":1}}',
  })
  // Closing after a complete request is Node's own close: the client's FIN is not awaited.
  socket.write(`${head('connection: close\r\ncontent-length: 7\r\n')}{"b":2}`)
  t.match((await answered(3))[2], { status: 200, headers: { connection: 'close' } })
  await closedByServer
  await refusesWhatFollows(t, socket, ended)
})

/** `answer` is the envelope of `code` with `status`, sent as JSON on a connection that closes. */
function isEnvelope(t: Test, answer: Answer | undefined, status: number, code: ErrorCode, description: RegExp) {
  t.match(answer, {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', connection: 'close', 'x-request-id': /^[\w-]{36}$/ },
  })
  const body = JSON.parse(answer?.body ?? 'null') as Record<string, unknown>
  t.same(Object.keys(body), ['status', 'error', 'description', 'userDescription', 'message'])
  t.match(body, { status: 'error', error: code, description, userDescription: USER_DESCRIPTIONS[code] })
  t.equal(body.message, body.description)
}

t.test(`a request line over 16 KiB, still being sent: 431 in the envelope, and no reset (${RUNS} runs)`, async (t) => {
  const port = await listening(t)
  const outcomes: string[] = []
  for (let run = 0; run < RUNS; run++) {
    const { socket, ended, answers } = client(port)
    socket.write('GET /echo?q=')
    await sendWhile(
      socket,
      () => answers().length === 0,
      () => 'a'.repeat(CHUNK.length),
    )
    socket.end()
    const failure = await ended
    const [answer] = answers()
    if (run === 0) isEnvelope(t, answer, 431, 'request_header_fields_too_large', /^The request line and headers exceed/)
    const read = answer ? `${answer.status} ${(JSON.parse(answer.body) as { error: string }).error}` : 'no answer'
    outcomes.push(failure === undefined ? read : `${read}, reset (${failure.code})`)
  }
  t.same(outcomes, Array(RUNS).fill('431 request_header_fields_too_large'))
})

t.test('a header over 16 KiB: 431 in the envelope', async (t) => {
  const port = await listening(t)
  const { socket, answered } = client(port)
  socket.write(`GET /echo HTTP/1.1\r\nhost: quire.test\r\nx-padding: ${'a'.repeat(20 * 1024)}\r\n\r\n`)
  isEnvelope(t, (await answered(1))[0], 431, 'request_header_fields_too_large', /exceed 16384 bytes/)
  socket.end()
})

const malformed = {
  'bytes that are not HTTP': 'HELLO THERE\r\n\r\n',
  'a Content-Length that is not a number': `${head('content-length: ten\r\n')}{}`,
  'a header line without a colon': 'GET /echo HTTP/1.1\r\nhost quire.test\r\n\r\n',
}

for (const [name, sent] of Object.entries(malformed)) {
  t.test(`${name}: 400 validation_error in the envelope, and nothing pipelined behind it runs`, async (t) => {
    let ran = 0
    const port = await listening(t, (app) =>
      app.addHook('onRequest', async () => {
        ran++
      }),
    )
    const { socket, answered, ended } = client(port)
    socket.write(`${sent}${head('content-length: 2\r\n')}{}`)
    const answers = await answered(1)
    isEnvelope(t, answers[0], 400, 'validation_error', /^The request is not valid HTTP \(HPE_\w+\)/)
    socket.end()
    await ended
    t.equal(answers.length, 1, 'one answer')
    t.equal(ran, 0, 'no request reached a route')
  })
}

t.test('chunk extensions over the limit: 413 payload_too_large in the envelope', async (t) => {
  const port = await listening(t)
  const { socket, answered } = client(port)
  socket.write(`${head('transfer-encoding: chunked\r\n')}1;${'a'.repeat(64 * 1024)}\r\n`)
  isEnvelope(t, (await answered(1))[0], 413, 'payload_too_large', /chunk extensions/)
  socket.end()
})

t.test('a request not received in time: 408 request_timeout in the envelope', async (t) => {
  const app = createServer({ logLevel: 'silent', requestTimeout: 60_000 })
  app.post('/echo', async (request) => ({ status: 'ok', data: request.body ?? null }))
  // Node's own timers, made short here; it reads its checks' interval (an option its types lack) when it listens.
  Object.assign(app.server, { headersTimeout: 100, requestTimeout: 200, connectionsCheckingInterval: 20 })
  t.after(() => app.close())
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port)
  const stalled = {
    'headers that never end': 'POST /echo HTTP/1.1\r\nhost: quire.test\r\n',
    'a body that never ends': `${head('content-length: 100\r\n')}{"a":`,
  }
  for (const [name, sent] of Object.entries(stalled)) {
    const { socket, answered, ended } = client(port)
    socket.write(sent)
    isEnvelope(t, (await answered(1))[0], 408, 'request_timeout', /not received in time/)
    socket.end()
    t.equal(await ended, undefined, `${name}: closed without a reset`)
  }
})
