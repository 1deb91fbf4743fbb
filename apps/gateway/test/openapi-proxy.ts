import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import formats from 'ajv-formats'
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend'
import type { Teardown } from '@quire/testing'

/** One thing the document did not allow: which call, and what. */
interface Violation {
  call: string
  problem: string
}

interface Responses {
  [status: string]: { content?: Record<string, unknown> }
}

/** Headers of one connection, or that fetch sets itself from the body it sends. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

/** `text/plain` is allowed by `text/plain`, `text/*` and `*\/*`. */
const mediaAllows = (declared: string, actual: string) => {
  const [type, subtype] = declared.split('/')
  const [actualType] = actual.split('/')
  return declared === actual || declared === '*/*' || (subtype === '*' && type === actualType)
}

/** The response declared for `status`: itself, its class (`4XX`), or `default`. */
const declaredResponse = (responses: Responses, status: number) =>
  responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default

/**
 * A body of a JSON-based media type other than `application/json` (`application/merge-patch+json`), parsed: the
 * validator checks only objects against the operation's schema for those; malformed, it stays text.
 */
const parsedJson = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString()) as unknown
  } catch {
    return raw.toString()
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * What a validating proxy (Prism's, say) checks, with a third-party validator (openapi-backend, on Ajv): each
 * request must match an operation and its parameters and body; each answer's status must be declared, its media
 * type one the operation declares for it, and a JSON answer its schema. `quick`: the definition itself is checked
 * by the stricter OpenAPI 3.1 validator of the conformance test (openapi-backend's own knows 3.0 only). A multipart form is checked by its field
 * names (each file as a string).
 */
async function validator(document: Document) {
  const api = new OpenAPIBackend({
    definition: document,
    strict: true,
    quick: true,
    ajvOpts: { strict: false },
    // A CommonJS module: its function is also its `default`, the one TypeScript sees.
    customizeAjv: (ajv) => formats.default(ajv),
  })
  await api.init()
  return {
    request(request: { method: string; url: string; headers: Record<string, string>; body: unknown }) {
      const [path = '', query = ''] = request.url.split('?')
      const asked = { method: request.method, path, query, headers: request.headers, body: request.body }
      const operation = api.router.matchOperation(asked)
      if (!operation) return { operation, problems: [`no operation for ${request.method} ${path}`] }
      const result = api.validator.validateRequest(asked, operation)
      const problems = (result.errors ?? []).map((error) => `request ${error.instancePath} ${error.message}`)
      const type = request.headers['content-type']?.split(';')[0]
      const declared = Object.keys((operation.requestBody as { content?: object } | undefined)?.content ?? {})
      if (type && !declared.includes(type)) problems.push(`request body ${type} not declared (${declared.join()})`)
      return { operation, problems }
    },
    response(operation: Operation, status: number, type: string, body: unknown) {
      const declared = declaredResponse(operation.responses as Responses, status)
      if (!declared) return [`status ${status} not declared`]
      const media = Object.keys(declared.content ?? {})
      if (media.length === 0) return type === '' ? [] : [`${status} declares no body, got ${type}`]
      if (!media.some((one) => mediaAllows(one, type))) return [`${status} ${type} not declared (${media.join()})`]
      if (type !== 'application/json') return []
      const result = api.validator.validateResponse(body, operation, status)
      return (result.errors ?? []).map((error) => `response ${status} ${error.instancePath} ${error.message}`)
    },
  }
}

/** A multipart form as the validator reads it: each field's name, files as strings. */
async function formFields(raw: Buffer, contentType: string): Promise<Record<string, string | string[]>> {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData()
  const fields: Record<string, string | string[]> = {}
  for (const [name, value] of form) {
    const text = typeof value === 'string' ? value : `<${value.size} bytes>`
    const before = fields[name]
    fields[name] = before === undefined ? text : [before, text].flat()
  }
  return fields
}

/**
 * A proxy in front of `upstream` that passes every call through unchanged and records every violation of
 * `document`. Closed when the test ends.
 */
export async function validatingProxy(t: Teardown, upstream: string, document: Document) {
  const check = await validator(document)
  const violations: Violation[] = []
  let calls = 0
  const server = createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request)
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
      )
      const type = headers['content-type']?.split(';')[0] ?? ''
      const body =
        raw.length === 0
          ? undefined
          : type === 'application/json'
            ? raw.toString()
            : type.endsWith('+json')
              ? parsedJson(raw)
              : type === 'multipart/form-data'
                ? await formFields(raw, headers['content-type'] ?? '')
                : raw
      const call = `${request.method} ${request.url}`
      calls++
      const asked = check.request({ method: request.method ?? 'GET', url: request.url ?? '/', headers, body })
      violations.push(...asked.problems.map((problem) => ({ call, problem })))

      const answer = await fetch(new URL(request.url ?? '/', upstream), {
        method: request.method,
        headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name))),
        body: raw.length === 0 ? undefined : raw,
      })
      const bytes = Buffer.from(await answer.arrayBuffer())
      const answered = answer.headers.get('content-type')?.split(';')[0] ?? ''
      if (asked.operation) {
        const json = answered === 'application/json' && bytes.length > 0 ? JSON.parse(bytes.toString()) : undefined
        const problems = check.response(asked.operation, answer.status, answered, json)
        violations.push(...problems.map((problem) => ({ call, problem })))
      }
      // fetch decoded the body: its length and encoding are no longer the upstream's.
      const relayed = [...answer.headers].filter(([name]) => !['content-length', 'content-encoding'].includes(name))
      response.writeHead(answer.status, Object.fromEntries(relayed))
      response.end(bytes)
    })().catch((err: unknown) => {
      violations.push({ call: `${request.method} ${request.url}`, problem: `proxy: ${String(err)}` })
      response.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, violations, calls: () => calls }
}
