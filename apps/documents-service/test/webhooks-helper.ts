import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from './helper.js'

export const WEBHOOKS = '/api/v2/webhooks'

export interface Received {
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/**
 * An endpoint on a loopback port: records what it is sent and answers with `answer`'s status (and headers), 200
 * by default. `received(n)` resolves once `n` requests have arrived.
 */
export async function receiver(
  t: TestContext,
  answer: (request: Received, index: number) => { status: number; headers?: Record<string, string> } = () => ({
    status: 200,
  }),
) {
  const requests: Received[] = []
  const waiters: { count: number; resolve: () => void }[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const received = { url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString() }
      const { status, headers } = answer(received, requests.length)
      requests.push(received)
      response.writeHead(status, headers).end('ok')
      for (const waiter of waiters.filter(({ count }) => requests.length >= count)) waiter.resolve()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => server.close(resolve)))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    received(count: number): Promise<void> {
      if (requests.length >= count) return Promise.resolve()
      return new Promise((resolve) => waiters.push({ count, resolve }))
    },
  }
}

/** Checks a `Quire-Signature` header as a receiver would (the docs' snippet): true when it signs `body`. */
export function verifies(header: string | string[] | undefined, body: string, secret: string): boolean {
  if (typeof header !== 'string') return false
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]))
  const t = parts.t
  const v1 = parts.v1
  if (!t || !v1) return false
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest()
  const given = Buffer.from(v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
