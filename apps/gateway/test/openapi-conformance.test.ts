import t, { type Test } from 'tap'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { Document } from 'openapi-backend'
import { runScenarios } from './e2e/scenarios.js'
import { ADMIN, build } from './helper.js'
import { validatingProxy } from './openapi-proxy.js'

/** The all-in-one server on a loopback port, its OpenAPI document, and a validating proxy in front of it. */
async function proxied(t: Test) {
  const { server } = await build(t)
  const upstream = await server.listen({ port: 0, host: '127.0.0.1' })
  const document = (await server.inject({ method: 'GET', url: '/docs/json' })).json<Document>()
  return { document, ...(await validatingProxy(t, upstream, document)) }
}

/** A JSON call through the proxy, as a platform client sends it. */
function caller(base: string, headers: Record<string, string>) {
  return async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) => {
    const res = await fetch(new URL(path, base), {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return {
      status: res.status,
      headers: res.headers,
      body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
    }
  }
}

t.test('the document is valid OpenAPI 3.1 for a third-party validator', async (t) => {
  const { server } = await build(t)
  const document = (await server.inject({ method: 'GET', url: '/docs/json' })).json()
  const result = await new Validator().validate(document)
  t.same(result.errors ?? [], [], 'no schema errors')
  t.ok(result.valid)
  t.match(document, { info: { license: { identifier: 'Apache-2.0' } }, servers: [{ url: '/' }] })

  const paths = document.paths as Record<string, Record<string, { description?: string; parameters?: unknown[] }>>
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      t.ok(operation.description, `${method} ${path} has a description`)
    }
  }
  // The two package paths share a shape; a package id is never `installations`, so no URL matches both.
  const parameter = paths['/api/v2/packages/{packageId}/versions']?.post?.parameters?.find(
    (one) => (one as { name: string }).name === 'packageId',
  ) as { schema: { pattern: string } }
  t.notMatch('installations', new RegExp(parameter.schema.pattern))
  t.match('65f0c0ffee0123456789abcd', new RegExp(parameter.schema.pattern))
})

t.test('the end-to-end scenarios break no rule of the document', async (t) => {
  const proxy = await proxied(t)
  const steps = await runScenarios(proxy.url, ADMIN)
  t.ok(
    steps.some((step) => step.name === 'download range' && step.status === 206),
    'the scenarios ran',
  )
  t.equal(proxy.calls(), steps.length, 'every call went through the proxy')
  // The scenarios ask for a route that does not exist on purpose (its 404 envelope): the one call outside the document.
  const outside = proxy.violations.filter(({ call }) => call === 'GET /api/v2/nothing')
  t.equal(outside.length, 1)
  t.same(
    proxy.violations.filter((violation) => !outside.includes(violation)),
    [],
    'no other violation',
  )
})

t.test('optional bodies, downloads and conditional reads, as the document declares them', async (t) => {
  const proxy = await proxied(t)
  const login = await caller(proxy.url, {})('POST', '/auth/login', ADMIN)
  const { accessToken, userId } = login.body.data as { accessToken: string; userId: string }
  const call = caller(proxy.url, { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' })

  const definition = await call('POST', '/api/v2/document-definitions', {
    name: 'orders',
    actions: [{ name: 'hello', triggers: ['manual'], source: 'return 1' }],
  })
  t.equal(definition.status, 201)
  t.equal((await call('POST', '/api/v2/document-definitions?sourceId=orders')).status, 201, 'a copy without a body')
  const created = await call('POST', '/api/v2/document-definitions/orders/documents/new')
  t.equal(created.status, 201, 'a document without a body')
  const core = `/api/v2/document-definitions/orders/documents/${created.body.data._id as string}`
  t.match(await call('POST', `${core}/actions/hello`), { status: 200 }, 'an action without a body')
  t.equal((await call('POST', `/api/v2/users/${userId}/long-lived-tokens`)).status, 201, 'a token without a body')

  const form = new FormData()
  form.append('file', new Blob(['%PDF-1.4 not really'], { type: 'application/pdf' }), 'a.pdf')
  const upload = await fetch(new URL(`${core}/attachments?valuePath=files`, proxy.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'environment-id': 'default' },
    body: form,
  })
  t.equal(upload.status, 201)
  const attachment = `${core}/attachments/${((await upload.json()) as { data: { attachments: { _id: string }[] } }).data.attachments[0]?._id}`
  const whole = await call('GET', attachment)
  t.match(whole, { status: 200, body: '%PDF-1.4 not really' })
  t.equal(whole.headers.get('content-type'), 'application/pdf')
  t.equal((await call('HEAD', attachment)).status, 200)
  t.equal((await call('GET', attachment, undefined, { 'if-none-match': whole.headers.get('etag') ?? '' })).status, 304)
  const read = await call('GET', core)
  t.equal((await call('GET', core, undefined, { 'if-none-match': read.headers.get('etag') ?? '' })).status, 304)

  const mergePatch = { 'content-type': 'application/merge-patch+json' }
  t.equal((await call('PATCH', core, { customer: { name: 'Ada', city: 'Paris' } }, mergePatch)).status, 200)
  const patched = await call('PATCH', core, { customer: { city: null } }, mergePatch)
  t.match(patched, { status: 200, body: { data: { customer: { name: 'Ada' } } } }, 'a merge patch (RFC 7396)')
  t.notOk('city' in (patched.body.data.customer as object), 'its null removed the nested member')

  t.same(proxy.violations, [], 'no violation')
})

t.test('the proxy does catch what the document refuses', async (t) => {
  const proxy = await proxied(t)
  const call = caller(proxy.url, {})
  await call('POST', '/auth/login', { user: 'x' })
  await call('GET', '/api/v2/nothing')
  await call(
    'PATCH',
    '/api/v2/document-definitions/orders/documents/65f0c0ffee0123456789abcd',
    { title: 'x' },
    {
      'content-type': 'application/json-patch+json',
    },
  )
  t.match(proxy.violations, [
    { call: 'POST /auth/login', problem: /requestBody/ },
    { call: 'GET /api/v2/nothing', problem: /no operation/ },
    { problem: /request body application\/json-patch\+json not declared/ },
  ])
})
