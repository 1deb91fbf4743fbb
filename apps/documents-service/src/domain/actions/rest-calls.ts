import type { Delegation } from '@quire/auth'
import type { ActionRunWrite, ActionTrigger } from '@quire/contracts'
import type { RestAnswer, RestRequest } from '@quire/scripts'
import type { AnswerBudget } from '../../lib/answer-budget.js'

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)
export type Method = typeof METHODS extends Set<infer M> ? M : never
const isMethod = (method: string): method is Method => METHODS.has(method as Method)
/** What a before-write run may call: the write that set it off is not made yet and may still be refused. */
const READS: ReadonlySet<Method> = new Set(['GET', 'HEAD'])
/** Calls that change nothing; a run's record lists the others that succeeded. */
const SAFE: ReadonlySet<Method> = new Set(['GET', 'HEAD', 'OPTIONS'])
/** How much of a write's path its run's record keeps. */
const MAX_WRITE_PATH = 1000
/** Headers a script may not set: its identity is the delegation's, and proxies' headers are not its to forge. */
const HOST_HEADERS = /^(authorization|host|content-length|x-quire-.*|x-forwarded-.*|forwarded|x-real-ip)$/

/** A call as the transport sends it: a path of this API, the run's credentials set. */
export interface TransportRequest {
  method: Method
  url: string
  headers: Record<string, string>
  payload?: string
}

/** An answer whose body is not read yet: `close` stops its source (a file being read, for one). */
export interface TransportAnswer {
  status: number
  headers: Record<string, string>
  body: AsyncIterable<Buffer>
  close(): void
}

/** How a REST.call reaches the API: in-process (one server) or through the gateway (services apart). */
export interface RestTransport {
  /** The credentials a call carries: the delegation's in-process handle, or its run token across processes. */
  authorization(delegation: Delegation): string
  send(request: TransportRequest): Promise<TransportAnswer>
}

/** What the REST.calls of one run share. */
export interface Calls {
  delegation: Delegation
  /** Aborted once the run has ended: waits for the answer budget stop, answers being read are dropped. */
  ended: AbortSignal
  /** A before-write run's trigger: its calls may only read. */
  readOnly: ActionTrigger | undefined
  /** The writes answered 2xx, as they were answered. */
  writes: ActionRunWrite[]
  /** Writes under way: the run's record waits for them (one not committed as the run ended is refused). */
  pending: Set<Promise<unknown>>
}

export interface RestCallsDeps {
  transport: RestTransport
  /** The bytes of answers this process holds at once, for every run. */
  budget: AnswerBudget
  /** The longest answer one call may read. */
  maxAnswerBytes: number
}

/** The answer a REST.call gets: JSON parsed, else text. */
function parsedBody(contentType: string, text: string): unknown {
  if (!contentType.includes('json') || text === '') return text
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/**
 * A run's REST.call: refused before it starts when the run can no longer make it (a before-write run's write,
 * a run that has ended). A write is tracked until it is answered, and listed in the run's record if it succeeded.
 */
export function restCalls({ transport, budget, maxAnswerBytes }: RestCallsDeps) {
  async function rest(calls: Calls, request: RestRequest, signal: AbortSignal): Promise<RestAnswer> {
    const endpoint = request.endpoint
    if (/^[A-Za-z][A-Za-z0-9+.-]*:|^\/\//.test(endpoint)) {
      throw new Error(`REST.call takes a path of this API (api/v2/...), not ${endpoint.slice(0, 100)}`)
    }
    const method = request.method.toUpperCase()
    if (!isMethod(method)) throw new Error(`REST.call method must be one of ${[...METHODS].join(', ')}`)
    if (calls.readOnly && !READS.has(method)) {
      throw new Error(
        `REST.call in a ${calls.readOnly} action may only read (GET or HEAD), not ${method}: the write that set it off is not made yet and may still be refused`,
      )
    }
    // The engine no longer waits for this call: it never starts.
    if (signal.aborted || calls.ended.aborted) throw new Error('REST.call not made: its run has ended')
    const headers: Record<string, string> = {
      accept: 'application/json',
      'environment-id': calls.delegation.headers['environment-id'],
    }
    for (const [name, value] of Object.entries(request.headers)) {
      const lower = name.toLowerCase()
      if (!HOST_HEADERS.test(lower)) headers[lower] = String(value)
    }
    headers.authorization = transport.authorization(calls.delegation)
    let payload: string | undefined
    if (request.body !== undefined && request.body !== null) {
      payload = typeof request.body === 'string' ? request.body : JSON.stringify(request.body)
      headers['content-type'] ??= 'application/json'
    }
    const url = `/${endpoint.replace(/^\/+/, '')}`
    const answer = send(calls.ended, { method, url, headers, ...(payload === undefined ? {} : { payload }) })
    if (SAFE.has(method)) return answer
    const written = answer.then((done) => {
      if (done.status >= 200 && done.status < 300) {
        calls.writes.push({ method, path: url.slice(0, MAX_WRITE_PATH), status: done.status })
      }
      return done
    })
    calls.pending.add(written)
    const settled = () => calls.pending.delete(written)
    written.then(settled, settled)
    return written
  }

  /** Sends a REST.call and reads its answer within the budget. */
  async function send(ended: AbortSignal, request: TransportRequest): Promise<RestAnswer> {
    const answer = await transport.send(request)
    const { bytes, give } = await readAnswer(answer, request.method, ended)
    try {
      return {
        status: answer.status,
        headers: answer.headers,
        body: parsedBody(answer.headers['content-type'] ?? '', bytes.toString('utf8')),
      }
    } finally {
      // The script has it now (the engine copies it to the run's worker as soon as this resolves).
      give()
    }
  }

  /**
   * Reads an answer within the process's budget for answers: a declared length over the limit is refused unread;
   * otherwise the call waits for room for it (for the limit when no length is declared), in turn with every other
   * run's calls, and reading stops past that room. An answer left unread is closed (its source stops).
   */
  async function readAnswer(
    answer: TransportAnswer,
    method: Method,
    ended: AbortSignal,
  ): Promise<{ bytes: Buffer; give: () => void }> {
    // The run's end stops the reading (an answer whose source stalls would otherwise hold its room for good).
    const stop = () => answer.close()
    ended.addEventListener('abort', stop, { once: true })
    let give: ((bytes?: number) => void) | undefined
    try {
      const declared = Number(answer.headers['content-length'] ?? Number.NaN)
      const empty = method === 'HEAD' || answer.status === 204 || answer.status === 304
      if (!empty && declared > maxAnswerBytes) {
        throw new Error(`REST.call answer of ${declared} bytes is over the limit of ${maxAnswerBytes}`)
      }
      const room = empty ? 0 : Number.isSafeInteger(declared) && declared >= 0 ? declared : maxAnswerBytes
      give = await budget.take(room, ended)
      const chunks: Buffer[] = []
      let length = 0
      for await (const chunk of answer.body) {
        length += chunk.length
        if (length > room) {
          throw new Error(
            room === declared
              ? `REST.call answer is longer than the ${declared} bytes it declared`
              : `REST.call answer is over the limit of ${maxAnswerBytes} bytes`,
          )
        }
        chunks.push(chunk)
      }
      give(room - length)
      return { bytes: Buffer.concat(chunks, length), give }
    } catch (error) {
      give?.()
      answer.close()
      throw error
    } finally {
      ended.removeEventListener('abort', stop)
    }
  }

  return rest
}
