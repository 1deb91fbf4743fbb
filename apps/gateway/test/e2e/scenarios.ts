/**
 * Black-box HTTP scenarios, run unchanged against the all-in-one server and the distributed stack. Each step
 * records its status and a normalized body (ids, times, hashes and secrets replaced by stable placeholders),
 * so the two modes can be compared as transcripts.
 */

export interface Step {
  name: string
  status: number
  contentType: string
  body: unknown
}

const OBJECT_ID = /^[0-9a-f]{24}$/
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const CURSOR = /~([\w-]+)/g
const VOLATILE_KEYS = new Set(['accessToken', 'token', '_hash', 'etag', 'uptime', 'lastLogin'])

/** Replaces what differs between runs by placeholders; the same id maps to the same placeholder. */
function normalize(value: unknown, ids = new Map<string, string>()): unknown {
  if (Array.isArray(value)) return value.map((item) => normalize(item, ids))
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        VOLATILE_KEYS.has(key) && typeof inner === 'string' ? `<${key}>` : normalize(inner, ids),
      ]),
    )
  }
  if (typeof value === 'string') {
    if (TIMESTAMP.test(value)) return '<time>'
    // A list cursor (`after=~...` in `next`): base64url of the last item's sort values and `_id`, an id inside.
    let out = value.replace(CURSOR, (_cursor, encoded: string) => {
      return `~<cursor ${String(normalize(Buffer.from(encoded, 'base64url').toString(), ids))}>`
    })
    for (const id of value.match(/[0-9a-f]{24}/g) ?? []) {
      if (!ids.has(id)) ids.set(id, `<id${ids.size}>`)
      out = out.replaceAll(id, ids.get(id)!)
    }
    return OBJECT_ID.test(value) ? ids.get(value) : out
  }
  return value
}

export interface Admin {
  username: string
  password: string
}

export async function runScenarios(base: string, admin: Admin): Promise<Step[]> {
  const steps: Step[] = []
  const ids = new Map<string, string>()
  let token = ''
  const env = 'default'

  async function call(
    name: string,
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; form?: FormData } = {},
  ) {
    const headers: Record<string, string> = {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      'environment-id': env,
      ...options.headers,
    }
    let body: string | FormData | undefined
    if (options.form) body = options.form
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body)
      headers['content-type'] = 'application/json'
    }
    const res = await fetch(new URL(path, base), { method, headers, body })
    const contentType = res.headers.get('content-type') ?? ''
    const raw = await res.text()
    const parsed: unknown = contentType.includes('json') && raw ? JSON.parse(raw) : raw
    steps.push({ name, status: res.status, contentType: contentType.split(';')[0] ?? '', body: normalize(parsed, ids) })
    return { status: res.status, body: parsed as Record<string, any>, headers: res.headers }
  }

  // Authentication and the envelope of refusals.
  const login = await call('login', 'POST', '/auth/login', { body: admin, headers: { 'environment-id': '' } })
  token = login.body.data.accessToken
  await call('no environment', 'GET', '/api/v2/users', { headers: { 'environment-id': '' } })
  const saved = token
  token = ''
  await call('no token', 'GET', '/api/v2/users')
  token = 'garbage-token-garbage-token'
  await call('garbage token', 'GET', '/api/v2/packages/installations')
  token = saved
  await call('unknown route', 'GET', '/api/v2/nothing')

  // Definitions and documents.
  await call('definition not found', 'GET', '/api/v2/document-definitions/nope/documents')
  const definition = await call('create definition', 'POST', '/api/v2/document-definitions', {
    body: { name: 'orders', label: 'Orders' },
  })
  const ddId: string = definition.body.data._id
  const core = `/api/v2/document-definitions/orders/documents`
  const created: string[] = []
  for (let i = 0; i < 5; i++) {
    const doc = await call(`create document ${i}`, 'POST', `${core}/new`, {
      body: { externalId: `ext-${i}`, total: i * 10, tags: ['a'] },
    })
    created.push(doc.body.data._id)
  }
  await call('duplicate externalId', 'POST', `${core}/new`, { body: { externalId: 'ext-0' } })
  const byId = await call('get by id', 'GET', `${core}/${created[0]}`)
  await call('get by id, not modified', 'GET', `${core}/${created[0]}`, {
    headers: { 'if-none-match': byId.headers.get('etag') ?? '' },
  })
  await call('get by externalId', 'GET', `/api/v2/document-definitions/${ddId}/documents/ext-1`)
  await call('document not found', 'GET', `${core}/000000000000000000000000`)
  const page1 = await call('list page 1', 'GET', `${core}?limit=2&sort=${encodeURIComponent('{"total":-1}')}`)
  const page2 = await call('list page 2', 'GET', `${core}?${page1.body.pagination.next}`)
  await call('list page 3', 'GET', `${core}?${page2.body.pagination.next}`)
  await call('forbidden operator', 'GET', `${core}?query=${encodeURIComponent('{"$where":"1"}')}`)
  const first = await call('get for etag', 'GET', `${core}/${created[0]}`)
  await call('patch stale', 'PATCH', `${core}/${created[0]}`, {
    body: { total: 1 },
    headers: { 'if-match': '"stale"' },
  })
  await call('patch', 'PATCH', `${core}/${created[0]}`, {
    body: { total: 1, tags: null },
    headers: { 'if-match': first.headers.get('etag') ?? '' },
  })
  await call('put', 'PUT', `${core}/${created[1]}`, { body: { note: 'replaced' } })
  await call('delete', 'DELETE', `${core}/${created[4]}`)
  await call('deleted is gone', 'GET', `${core}/${created[4]}`)

  // Attachments through the proxy: multipart upload, ranged download, copy.
  const form = new FormData()
  form.append('file', new Blob(['hello attachments'], { type: 'text/plain' }), 'hello.txt')
  const upload = await call('upload', 'POST', `${core}/${created[0]}/attachments?valuePath=files`, { form })
  const attachmentId: string | undefined = upload.body.data?.attachments?.[0]?._id
  await call('download range', 'GET', `${core}/${created[0]}/attachments/${attachmentId}`, {
    headers: { range: 'bytes=0-4' },
  })
  await call('copy attachments', 'POST', '/api/v2/documents/copyAttachments', {
    body: [
      {
        source: { ddName: 'orders', _id: created[0], valuePath: 'files' },
        target: { ddName: 'orders', _id: created[2], valuePath: 'copies' },
      },
    ],
  })
  await call('copied document', 'GET', `${core}/${created[2]}`)

  // Users, packages, usage statistics.
  const user = await call('create user', 'POST', '/api/v2/users', {
    body: { username: 'alice', password: 'alice-password-1', email: 'alice@example.com', name: 'Alice' },
  })
  await call('duplicate username', 'POST', '/api/v2/users', {
    body: { username: 'alice', password: 'alice-password-1' },
  })
  await call('list users', 'GET', '/api/v2/users?limit=1')
  await call('get user', 'GET', `/api/v2/users/${user.body.data?.[0]?._id}`)
  await call('active users', 'GET', '/api/v2/usage-statistics/active-users')
  const pkg = await call('create package', 'POST', '/api/v2/packages', {
    body: { name: 'crm', label: 'CRM', shortDescription: 'Customers' },
  })
  const version = await call('create version', 'POST', `/api/v2/packages/${pkg.body.data?._id}/versions`, {
    body: { versionNumber: '1.2.0', availableOnMarketplace: true },
  })
  await call('install', 'POST', '/api/v2/packages/installations', {
    body: { packageVersionId: version.body.data?._id },
  })
  await call('installations', 'GET', '/api/v2/packages/installations')
  return steps
}
