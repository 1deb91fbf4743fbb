import { createHmac } from 'node:crypto'
import type { LookupFunction } from 'node:net'
import { Agent, request } from 'undici'
import { targetRefusal } from '../../lib/webhook-targets.js'

/** What one attempt came to: the answer's status, or the error that stopped it before one. */
export interface SendOutcome {
  status?: number
  error?: string
  durationMs: number
}

export interface Delivered {
  url: string
  body: string
  secret: string
  webhookId: string
  deliveryId: string
}

/** Bytes of an answer read (and dropped) so its connection can be reused; past them it is cut. */
const ANSWER_BYTES = 64 * 1024

/** `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">` under the webhook's secret, as Stripe signs its webhooks. */
function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}

/**
 * Sends deliveries: one POST, redirects never followed (undici's `request` follows none), the whole attempt
 * bounded by `timeoutMs`, the answer read up to 64 KiB. Unless private targets are allowed, an address written in
 * the URL is checked here and every name is resolved through `lookup`, which drops non-public addresses.
 */
export function createSender({
  timeoutMs,
  allowPrivate,
  lookup,
  now,
}: {
  timeoutMs: number
  allowPrivate: boolean
  lookup: LookupFunction
  /** Epoch ms: the signature's time. */
  now: () => number
}) {
  const agent = new Agent({
    connect: { timeout: timeoutMs, ...(allowPrivate ? {} : { lookup }) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  })

  async function send(delivery: Delivered): Promise<SendOutcome> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    const refusal = targetRefusal(delivery.url, allowPrivate)
    if (refusal) return { error: refusal, durationMs: elapsed() }
    try {
      const answer = await request(delivery.url, {
        method: 'POST',
        dispatcher: agent,
        body: delivery.body,
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Quire-Webhooks/1',
          'quire-signature': signature(delivery.secret, delivery.body, Math.floor(now() / 1000)),
          'quire-webhook-id': delivery.webhookId,
          'quire-delivery-id': delivery.deliveryId,
        },
      })
      let read = 0
      for await (const chunk of answer.body) {
        read += (chunk as Buffer).length
        if (read > ANSWER_BYTES) break
      }
      if (read > ANSWER_BYTES) answer.body.destroy()
      const { statusCode: status } = answer
      if (status >= 300 && status < 400) return { status, error: 'redirect not followed', durationMs: elapsed() }
      return { status, durationMs: elapsed() }
    } catch (error) {
      return { error: describe(error), durationMs: elapsed() }
    }
  }

  return { send, close: () => agent.close() }
}

/** An attempt's error as an administrator reads it: its code and message, never a stack. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed'
  // undici wraps the socket's own error (a refused target, a reset) as the cause of a generic one.
  const cause = error.cause instanceof Error ? error.cause : error
  const code = (cause as NodeJS.ErrnoException).code
  const text = cause.name === 'TimeoutError' ? 'timed out' : cause.message
  return (code ? `${code}: ${text}` : text).slice(0, 300)
}
