import t from 'tap'
import type { FastifySchema } from 'fastify'
import { DOCUMENTS_COLLECTIONS, documentsCollection } from '@quire/documents-service'
import { PACKAGES_COLLECTIONS } from '@quire/packages-service'
import { USERS_COLLECTIONS } from '@quire/users-service'
import {
  ENV,
  ENVELOPE,
  isInfrastructure,
  multipart,
  snapshot,
  type Json,
  type Request,
  type World,
  world,
} from './hardening/world.js'

const BODY_LIMIT = 64 * 1024
const MAX_FILE_SIZE = 4 * 1024
const DEEP = 10_000

/** One hostile request, and what it must get: a given status, or any 4xx. */
interface Case {
  name: string
  request: Omit<Request, 'method' | 'url'> & { url?: string }
  status?: number
  code?: string
}

/** The slice of JSON Schema the generator reads from a route's schema. */
interface JsonSchemaNode {
  type?: string | string[]
  properties?: Record<string, JsonSchemaNode>
  required?: string[]
  additionalProperties?: boolean
}

const asNode = (schema: unknown): JsonSchemaNode | undefined =>
  schema !== null && typeof schema === 'object' ? (schema as JsonSchemaNode) : undefined

const json = (payload: string | Buffer) => ({ payload, headers: { 'content-type': 'application/json' } })

/** Every operator the platform forbids in a client filter (and a few Mongo would run), plainly and nested. */
const FORBIDDEN_OPERATORS = [
  '$where',
  '$expr',
  '$function',
  '$accumulator',
  '$jsonSchema',
  '$text',
  '$mod',
  '$lookup',
  '$merge',
  '$out',
  '$geoWithin',
  '$near',
  '$comment',
  '$rand',
  '$set',
  '$unset',
  '$inc',
  '$search',
]
const forbiddenFilters: [string, Json][] = FORBIDDEN_OPERATORS.flatMap((op): [string, Json][] => [
  [`${op} at the top`, { [op]: 'sleep(1000) || true' }],
  [`${op} on a field`, { title: { [op]: { body: 'function () { return true }', args: [], lang: 'js' } } }],
  [`${op} inside $and`, { $and: [{ title: 'x' }, { [op]: '1' }] }],
  [`${op} inside $elemMatch`, { list: { $elemMatch: { [op]: '1' } } }],
])
const pollutingFilters: [string, Json][] = [
  ['__proto__ key', JSON.parse('{"__proto__": {"polluted": true}}') as Json],
  ['constructor.prototype path', { 'constructor.prototype.polluted': true }],
  ['a regex that does not compile', { title: { $regex: '(' } }],
  ['a filter nested 50 deep', nest(50, { a: 1 })],
]

function nest(depth: number, leaf: Json): Json {
  let node = leaf
  for (let i = 0; i < depth; i++) node = { a: node }
  return node
}

const BAD_IDS = [
  ['path traversal', '..%2F..%2F..%2Fetc%2Fpasswd'],
  ['NUL byte', 'abc%00def'],
  ['longer than any id', 'x'.repeat(300)],
  ['operator object', encodeURIComponent('{"$gt":""}')],
  ['invalid UTF-8', '%C0%AE%C0%AE'],
  ['right-to-left override', '%E2%80%AEtxt.exe'],
] as const

const CONTROL_NAMES = ['nul\u0000name', 'bell\u0007name', '\u001b[2Jansi', 'new\nline', 'del\u007fname']
const BAD_VALUE_PATHS = [
  '../files',
  'a/../../b',
  'files/../../etc',
  '__proto__',
  'constructor.prototype',
  'files.__proto__',
  '_id',
  'status',
  'a..b',
  '.files',
  'files.',
  '0',
  'files.99999999',
  'x'.repeat(2000),
]

/** Cases from what a route declares: its body, its querystring, its params, how it takes its body. */
function casesFor(method: string, url: string, schema: FastifySchema | undefined, w: World): Case[] {
  const cases: Case[] = []
  const body = asNode(schema?.body)
  const querystring = asNode(schema?.querystring)
  // Upload routes declare their form under `multipart` (packages/service-kit/src/openapi.ts).
  const multipartRoute = (schema as { multipart?: unknown } | undefined)?.multipart !== undefined
  const takesBody = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE'

  // Invalid ids, one parameter at a time.
  const params = [...url.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '')
  for (const param of params) {
    for (const [why, bad] of BAD_IDS) {
      cases.push({ name: `:${param} ${why}`, request: { url: fill(url, w, { [param]: bad }) } })
    }
  }

  if (takesBody) {
    cases.push(
      { name: 'malformed JSON', request: json('{"name": "x", '), status: 400 },
      { name: 'JSON with a trailing comma', request: json('{"name": "x",}'), status: 400 },
      { name: 'body over the limit', request: json(`{"name": "${'x'.repeat(BODY_LIMIT + 1)}"}`), status: 413 },
      {
        name: 'text/plain body',
        request: { payload: 'name=x', headers: { 'content-type': 'text/plain' } },
        status: 415,
      },
      {
        name: 'form-encoded body',
        request: { payload: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        status: 415,
      },
      { name: 'XML body', request: { payload: '<a/>', headers: { 'content-type': 'application/xml' } }, status: 415 },
      { name: '__proto__ key', request: json('{"__proto__": {"polluted": true}, "name": "x"}'), status: 400 },
      {
        name: 'constructor.prototype keys',
        request: json('{"constructor": {"prototype": {"polluted": true}}, "name": "x"}'),
        status: 400,
      },
    )
    if (!multipartRoute) {
      cases.push({
        name: 'multipart to a JSON route',
        request: multipart([{ filename: 'a.txt', content: 'a' }]),
        status: 415,
      })
    }
  }

  // `reset-password` answers 200 to any name, so nobody can probe for accounts (docs/API.md).
  if (body) cases.push(...bodyCases(body, url.endsWith('/reset-password')))

  if (querystring?.properties) {
    for (const [name, property] of Object.entries(querystring.properties)) {
      const types = [property.type].flat()
      if (types.includes('integer') || types.includes('number')) {
        for (const value of ['abc', '1e309', '-1', '1.5', '99999999999999999999']) {
          cases.push({ name: `?${name}=${value}`, request: { url: withQuery(fill(url, w), name, value) } })
        }
      }
      if (types.includes('boolean')) {
        cases.push({ name: `?${name}=maybe`, request: { url: withQuery(fill(url, w), name, 'maybe') } })
      }
    }
    if ('limit' in querystring.properties) {
      for (const limit of ['0', '801', '100000']) {
        cases.push({
          name: `oversized limit=${limit}`,
          request: { url: withQuery(fill(url, w), 'limit', limit) },
          status: 400,
        })
      }
    }
    if ('query' in querystring.properties) {
      for (const [why, filter] of [...forbiddenFilters, ...pollutingFilters]) {
        cases.push({
          name: `query with ${why}`,
          request: { url: withQuery(fill(url, w), 'query', JSON.stringify(filter)) },
          status: 400,
          code: 'invalid_query',
        })
      }
      cases.push({
        name: 'query that is not JSON',
        request: { url: withQuery(fill(url, w), 'query', '{title:') },
        status: 400,
        code: 'invalid_query',
      })
      cases.push({
        name: 'query that is an array',
        request: { url: withQuery(fill(url, w), 'query', '[1]') },
        status: 400,
        code: 'invalid_query',
      })
    }
    for (const name of ['sort', 'fields', 'options']) {
      if (!(name in querystring.properties)) continue
      const hostile: Record<string, Json> = {
        sort: { $where: 1 },
        fields: { 'constructor.prototype': 1 },
        options: { sort: { $natural: 1 }, limit: 100000 },
      }
      cases.push({
        name: `${name} with an operator`,
        request: { url: withQuery(fill(url, w), name, JSON.stringify(hostile[name])) },
        status: 400,
      })
      cases.push({
        name: `${name} that is not JSON`,
        request: { url: withQuery(fill(url, w), name, '{') },
        status: 400,
      })
    }
    if ('valuePath' in querystring.properties) {
      for (const path of BAD_VALUE_PATHS) {
        cases.push({
          name: `valuePath ${JSON.stringify(path.slice(0, 40))}`,
          request: {
            url: withQuery(fill(url, w), 'valuePath', path),
            ...multipart([{ filename: 'a.txt', content: 'a' }]),
          },
        })
      }
      cases.push({
        name: 'actionType not an action',
        request: {
          url: `${withQuery(fill(url, w), 'valuePath', 'files')}&actionType=delete`,
          ...multipart([{ filename: 'a.txt', content: 'a' }]),
        },
        status: 400,
      })
    }
  }

  if (multipartRoute) {
    const upload = withQuery(fill(url, w), 'valuePath', 'files')
    cases.push(
      {
        name: 'file over the size limit',
        request: { url: upload, ...multipart([{ filename: 'big.bin', content: Buffer.alloc(MAX_FILE_SIZE + 1) }]) },
        status: 413,
      },
      {
        name: 'more files than allowed',
        request: {
          url: upload,
          ...multipart(Array.from({ length: 4 }, (_, i) => ({ filename: `${i}.txt`, content: 'a' }))),
        },
        status: 413,
      },
      {
        name: 'multipart without a file part',
        request: {
          url: upload,
          payload: Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n--b--\r\n'),
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
        },
      },
      {
        name: 'multipart without a boundary',
        request: { url: upload, payload: 'garbage', headers: { 'content-type': 'multipart/form-data' } },
      },
      {
        name: 'multipart cut short',
        request: {
          url: upload,
          payload: Buffer.from('--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc'),
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
        },
      },
    )
  }
  return cases
}

/** From a body schema: wrong top-level types, missing required fields, unknown fields, wrong field types, control characters in names, deep nesting. */
function bodyCases(body: JsonSchemaNode, answersAnything: boolean): Case[] {
  const cases: Case[] = []
  const isArray = [body.type].flat().includes('array')
  // Not `null`: an absent body means defaults on the routes whose body is optional. A body of no declared type is
  // read by its handler (an import's rows): an empty array is a file of no rows there, not a wrong type.
  const wrongs = isArray
    ? ['{}', '"text"', '42', '[]']
    : body.type === undefined
      ? ['"text"', '42', 'true']
      : ['[]', '"text"', '42', 'true']
  for (const wrong of wrongs) {
    cases.push({ name: `body ${wrong}`, request: json(wrong), status: 400 })
  }
  if (isArray) return cases
  if (body.required && body.required.length > 0) {
    cases.push({ name: 'required fields missing', request: json('{}'), status: 400 })
  }
  const properties = body.properties ?? {}
  if (body.additionalProperties === false) {
    cases.push({ name: 'an unknown field', request: json(JSON.stringify({ unknownField: 1 })), status: 400 })
    cases.push({
      name: 'a system field',
      request: json(JSON.stringify({ _id: 'mine', isSuperAdministrator: true })),
      status: 400,
    })
  }
  for (const [name, property] of Object.entries(properties)) {
    const types = [property.type].flat()
    if (types.length === 0 || types.includes(undefined as unknown as string)) continue
    // Values Ajv cannot coerce (`coerceTypes: 'array'` would wrap a string into an array).
    const wrong: Json = types.includes('object') ? 'text' : { nested: true }
    cases.push({ name: `${name} of the wrong type`, request: json(JSON.stringify({ [name]: wrong })), status: 400 })
    if (['name', 'username'].includes(name) && types.includes('string') && !answersAnything) {
      for (const control of CONTROL_NAMES) {
        cases.push({
          name: `${name} with control characters ${JSON.stringify(control)}`,
          request: json(JSON.stringify({ ...requiredStrings(body), [name]: control })),
        })
      }
    }
  }
  // Built as text: a value this deep is past what JSON.stringify itself can walk.
  const deep = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`
  cases.push({
    name: `a body nested ${DEEP} deep`,
    request: json(
      `${JSON.stringify(requiredStrings(body)).slice(0, -1)}${body.required?.length ? ',' : ''}"deep":${deep}}`,
    ),
    status: 400,
  })
  return cases
}

/** Plausible strings for the required fields, so the case tests the one thing it names. */
const requiredStrings = (body: JsonSchemaNode): Record<string, string> =>
  Object.fromEntries((body.required ?? []).map((name) => [name, `abuse-${name}`]))

function fill(url: string, w: World, override: Record<string, string> = {}): string {
  const values: Record<string, string> = {
    ddId: w.definition._id,
    id: w.documentId,
    attachmentId: w.attachmentId,
    userId: w.userIds.target,
    tokenId: '000000000000000000000000',
    packageId: w.packageId,
    versionId: w.versionId,
    ...override,
  }
  return url.replace(/:(\w+)/g, (_, name: string) => values[name] ?? name)
}

const withQuery = (url: string, name: string, value: string) =>
  `${url}${url.includes('?') ? '&' : '?'}${name}=${encodeURIComponent(value)}`

const ANSWER_DEADLINE_MS = 5000

/** A hung request must fail its case, not stall the suite until tap's own timeout. */
async function answered<T>(pending: Promise<T>): Promise<T | 'no answer'> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<'no answer'>((resolve) => {
    timer = setTimeout(() => resolve('no answer'), ANSWER_DEADLINE_MS)
  })
  try {
    return await Promise.race([pending, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** Every collection a hostile request could write to. */
const collections = (w: World) => [
  USERS_COLLECTIONS.users,
  USERS_COLLECTIONS.environments,
  USERS_COLLECTIONS.longLivedTokens,
  USERS_COLLECTIONS.passwordResets,
  USERS_COLLECTIONS.mailOutbox,
  USERS_COLLECTIONS.auditLog,
  DOCUMENTS_COLLECTIONS.definitions,
  documentsCollection({ _id: w.definition._id, _environmentId: ENV }),
  DOCUMENTS_COLLECTIONS.idempotencyKeys,
  DOCUMENTS_COLLECTIONS.attachmentFiles,
  ...Object.values(PACKAGES_COLLECTIONS),
]

t.test('hostile input on every route: a 4xx with the envelope, never a 5xx, nothing stored', async (t) => {
  const w = await world(t, {
    QUIRE_BODY_LIMIT: String(BODY_LIMIT),
    // The bulk and import routes' own (larger) limits, set to the same so "over the limit" means it there too.
    QUIRE_BULK_BODY_LIMIT: String(BODY_LIMIT),
    QUIRE_IMPORT_BODY_LIMIT: String(BODY_LIMIT),
    QUIRE_MAX_FILE_SIZE: String(MAX_FILE_SIZE),
    QUIRE_MAX_FILES: '3',
  })
  const seen = new Set<string>()
  let count = 0
  for (const route of w.routes) {
    const url = route.url.length > 1 && route.url.endsWith('/') ? route.url.slice(0, -1) : route.url
    const key = `${route.method} ${url}`
    if (isInfrastructure(url) || route.method === 'HEAD' || seen.has(key)) continue
    seen.add(key)
    const cases = casesFor(route.method, url, route.schema, w)
    const before = await snapshot(w.resources, collections(w))
    for (const c of cases) {
      // The most powerful caller, so every refusal comes from the input, not from a role check.
      const label = `${key}: ${c.name}`
      count++
      const res = await answered(
        w.call('superAdministrator', {
          ...c.request,
          method: route.method as Request['method'],
          url: c.request.url ?? fill(url, w),
        }),
      )
      if (res === 'no answer') {
        t.fail(`${label}: no answer within ${ANSWER_DEADLINE_MS} ms (the request hangs)`)
        continue
      }
      if (c.status === undefined) {
        t.ok(res.statusCode >= 400 && res.statusCode < 500, `${label} → 4xx`, {
          status: res.statusCode,
          body: res.body.slice(0, 300),
        })
      } else t.equal(res.statusCode, c.status, `${label} → ${c.status}`, { body: res.body.slice(0, 300) })
      const body: unknown = String(res.headers['content-type']).startsWith('application/json') ? res.json() : res.body
      t.match(body, { ...ENVELOPE, ...(c.code && { error: c.code }) }, `${label}: envelope`)
      if (typeof body === 'object' && body !== null && 'description' in body && 'message' in body) {
        t.equal(body.message, body.description, `${label}: message is the description`)
      }
    }
    t.same(
      await snapshot(w.resources, collections(w)),
      before,
      `${key}: stored data unchanged after ${cases.length} cases`,
    )
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted')
  t.comment(`abuse suite: ${count} hostile requests over ${seen.size} routes`)
})

t.test('file names are data, never paths: traversal and control characters cannot escape or garble', async (t) => {
  const w = await world(t)
  if (!w.hasAttachments) return t.comment('attachment routes not mounted in this build')
  const names = [
    '../../../../etc/passwd',
    '..\\..\\windows\\system32',
    '/absolute/path.txt',
    'nul\u0000.txt',
    'ansi\u001b[31m.txt',
    'rtl\u202etxt.exe',
    'ünïcödé 📄.txt',
    '\r\nContent-Type: text/html\r\n.txt',
  ]
  for (const filename of names) {
    const documentId = await w.newDocument()
    const base = `/api/v2/document-definitions/${w.definition._id}/documents/${documentId}/attachments`
    const res = await w.call('member', {
      method: 'POST',
      url: `${base}?valuePath=files`,
      ...multipart([{ filename, content: 'payload' }]),
    })
    const label = JSON.stringify(filename)
    if (res.statusCode >= 400) {
      t.ok(res.statusCode < 500, `${label}: refused with a 4xx`)
      t.match(res.json(), ENVELOPE)
      continue
    }
    t.equal(res.statusCode, 201, `${label}: stored`)
    const [saved] = res.json<{ data: { attachments: { _id: string; _fileName: string }[] } }>().data.attachments
    t.notMatch(saved?._fileName, /\p{Cc}/u, `${label}: no control characters kept`)
    const download = await w.call('member', { url: `${base}/${saved?._id}` })
    t.equal(download.statusCode, 200, `${label}: downloads`)
    t.equal(download.body, 'payload', `${label}: same bytes`)
    t.notMatch(download.headers['content-disposition'], /[\r\n]/, `${label}: no header injection`)
  }
})
