import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import t from 'tap'
import { build, createDefinition, createDocument, documentsOf, getDocument } from '../helper.js'
import { attachmentsOf, filesUnder, storedObjects } from '../attachments-helper.js'

const MB = 1024 * 1024

t.test('over a real socket, 413 comes while the client is still sending, and the connection closes', async (t) => {
  const world = await build(t, { config: { QUIRE_MAX_FILE_SIZE: MB } })
  const { server, as } = world
  await createDefinition(server, as.admin, { name: 'orders' })
  const document = await createDocument(server, as.member, 'orders')
  const stored = await storedObjects(world)
  const address = await server.listen({ port: 0, host: '127.0.0.1' })

  // A 500 MB body the client would keep producing if the server read it all.
  const boundary = `quire-${randomUUID()}`
  const chunk = Buffer.alloc(64 * 1024, 1)
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`),
      )
    },
    pull(controller) {
      if (sent >= 500 * MB) return controller.close()
      sent += chunk.length
      controller.enqueue(chunk)
    },
  })
  const response = await fetch(`${address}${attachmentsOf('orders', document._id)}?valuePath=files`, {
    method: 'POST',
    headers: { ...as.member, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
    duplex: 'half',
  } as RequestInit)
  t.equal(response.status, 413)
  t.equal(response.headers.get('connection'), 'close')
  t.match(await response.json(), { status: 'error', error: 'payload_too_large' })
  t.ok(sent < 100 * MB, `the client stopped after ${(sent / MB).toFixed(1)} MB`)
  t.same(await storedObjects(world), stored, 'nothing stored')
  t.same(await filesUnder(world.uploadDir), [], 'no spooled file left')
})

t.test(
  'over a real socket, an upload refused before its body is read still lets the client read the answer',
  async (t) => {
    const world = await build(t)
    const { server, as } = world
    await createDefinition(server, as.admin, { name: 'orders' })
    const document = await createDocument(server, as.member, 'orders', { title: 'not a list' })
    const address = await server.listen({ port: 0, host: '127.0.0.1' })
    const boundary = `quire-${randomUUID()}`
    const body = (size: number) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n`),
        Buffer.alloc(size, 1),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ])
    const send = (id: string, valuePath: string, size: number) =>
      fetch(`${address}${attachmentsOf('orders', id)}?valuePath=${encodeURIComponent(valuePath)}`, {
        method: 'POST',
        headers: { ...as.member, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: body(size),
      })

    const cases: Array<[string, string, string, number, string]> = [
      ['a bad valuePath', document._id, 'title.0', 512 * 1024, 'invalid_value_path'],
      ['a system field', document._id, '_id', 64 * 1024, 'invalid_value_path'],
      ['an unknown document', 'nope', 'files', 512 * 1024, 'document_not_found'],
    ]
    for (const [name, id, valuePath, size, error] of cases) {
      const response = await send(id, valuePath, size)
      t.equal(response.status, error === 'document_not_found' ? 404 : 400, name)
      t.not(response.headers.get('connection'), 'close', `${name}: the connection stays usable`)
      t.match(await response.json(), { status: 'error', error }, name)
    }
    t.same(await filesUnder(world.uploadDir), [], 'nothing spooled')

    // Past the drain limit (1 MiB) the answer comes and the connection closes.
    const large = await server.inject({
      method: 'POST',
      url: `${attachmentsOf('orders', document._id)}?valuePath=title.0`,
      headers: { ...as.member, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: body(2 * MB),
    })
    t.equal(large.statusCode, 400)
    t.equal(large.headers.connection, 'close')
    t.equal(large.json().error, 'invalid_value_path')
  },
)

t.test(
  'over a real socket, a refused upload reads on until the client closes, and runs nothing sent behind it',
  async (t) => {
    const world = await build(t)
    const { server, as } = world
    await createDefinition(server, as.admin, { name: 'orders' })
    const document = await createDocument(server, as.member, 'orders', { title: 'not a list' })
    const address = new URL(await server.listen({ port: 0, host: '127.0.0.1' }))
    const headers = Object.entries(as.member).map(([name, value]) => `${name}: ${value}\r\n`)
    // Refused before its body is read (a bad valuePath), past the drain limit: answered, then the connection closes.
    // 12 MiB is more than the socket buffers hold: it all goes through only if the server reads on after answering.
    const refused = [
      `POST ${attachmentsOf('orders', document._id)}?valuePath=title.0 HTTP/1.1\r\n`,
      `host: ${address.host}\r\n`,
      ...headers,
      'content-type: multipart/form-data; boundary=quire\r\n',
      `content-length: ${12 * MB}\r\n\r\n`,
    ].join('')
    const behind = [
      `DELETE ${documentsOf('orders')}/${document._id} HTTP/1.1\r\n`,
      `host: ${address.host}\r\n`,
      ...headers,
    ]
    const socket = connect(Number(address.port), address.hostname)
    const received: Buffer[] = []
    socket.on('data', (data: Buffer) => received.push(data))
    const closed = new Promise<Error | undefined>((resolve) => {
      socket.once('error', resolve)
      socket.once('close', () => resolve(undefined))
    })
    socket.write(refused)
    socket.write(Buffer.alloc(12 * MB, 1))
    socket.write(`${behind.join('')}\r\n`)
    t.equal(await closed, undefined, 'the connection closed without a reset')
    const answers = Buffer.concat(received)
      .toString()
      .split(/^HTTP\/1\.1 /m)
      .slice(1)
    t.equal(answers.length, 1, 'one answer')
    t.match(answers[0], /^400 .*\r\nconnection: close\r\n/is)
    t.match(answers[0], /"error":"invalid_value_path"/)
    t.equal((await getDocument(server, as.member, 'orders', document._id))._id, document._id, 'the document is there')
  },
)
