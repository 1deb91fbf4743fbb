import t, { type Test } from 'tap'
import { createServer, loadConfig, mountService, openApiPlugin } from '@quire/service-kit'
import { testResources } from '@quire/testing'
import { service as documents } from '@quire/documents-service'
import { service as users } from '@quire/users-service'
import { ConfigSchema } from '../src/config.js'
import { build } from './helper.js'

interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  security?: Record<string, string[]>[]
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>
}
type Paths = Record<string, Record<string, Operation>>

const operations = (paths: Paths) =>
  Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method, path, operation })),
  )

/** What a generator reads of each operation, one line each, sorted: the same in every deployment. */
const signature = (paths: Paths) =>
  operations(paths)
    .map(({ method, path, operation: o }) =>
      [method, path, o.operationId, o.tags?.join(), JSON.stringify(o.security), o.summary].join(' '),
    )
    .sort()

t.test('/docs/json is usable as is by a generator', async (t) => {
  const { server } = await build(t)
  const document = (await server.inject({ method: 'GET', url: '/docs/json' })).json()
  const paths = document.paths as Paths
  const all = operations(paths)
  t.ok(all.length > 50)

  t.test('the spec paths, without trailing slashes', async (t) => {
    for (const path of Object.keys(paths)) t.notMatch(path, /.\/$/, `${path} has no trailing slash`)
    for (const path of [
      '/api/v2/users',
      '/api/v2/environments',
      '/api/v2/packages/installations',
      '/api/v2/document-definitions',
      '/api/v2/document-definitions/{ddId}/documents',
    ]) {
      t.ok(paths[path], `${path} is documented`)
    }
  })

  t.test('every operation has a unique operationId, a summary and a tag', async (t) => {
    const ids = all.map(({ operation }) => operation.operationId)
    t.equal(new Set(ids).size, ids.length, 'operation ids are unique')
    for (const { method, path, operation } of all) {
      t.match(operation.operationId, /^[a-z][A-Za-z0-9]+$/, `${method} ${path}: operationId`)
      t.ok(operation.summary, `${method} ${path}: summary`)
      t.equal(operation.tags?.length, 1, `${method} ${path}: one tag`)
    }
    const get = paths['/api/v2/document-definitions/{ddId}/documents']?.get
    t.match(get, { operationId: 'listDocuments', summary: 'List documents', tags: ['documents'] })
    t.match(paths['/api/v2/users/{userId}/long-lived-tokens']?.get, { tags: ['long-lived-tokens'] })
    t.equal(paths['/auth/login']?.post?.operationId, 'login')
    t.equal(paths['/api/v2/auth/login']?.post?.operationId, 'loginApiV2')
  })

  t.test('per-route security', async (t) => {
    t.notOk(document.security, 'no document-wide security: each operation says its own')
    const security = (path: string, method: string) => paths[path]?.[method]?.security
    for (const path of ['/auth/login', '/auth/reset-password', '/auth/reset-password/confirm', '/api/v2/auth/login']) {
      t.same(security(path, 'post'), [], `${path}: no credentials`)
    }
    t.same(security('/api/v2/environments', 'get'), [{ bearer: [] }])
    t.same(security('/auth/2fa/setup', 'post'), [{ bearer: [] }])
    t.same(security('/api/v2/packages', 'get'), [{ bearer: [] }])
    t.same(security('/api/v2/users', 'get'), [{ bearer: [], environment: [] }])
    t.same(security('/api/v2/document-definitions/{ddId}/documents/new', 'post'), [{ bearer: [], environment: [] }])
  })

  t.test('what each operation says it needs is what the server asks for', async (t) => {
    for (const { method, path, operation } of all) {
      if (method === 'head') continue
      const url = path.replace(/\{\w+\}/g, 'x1')
      const res = await server.inject({ method: method.toUpperCase() as 'GET', url })
      const needs = operation.security?.[0] ?? {}
      const what = `${method.toUpperCase()} ${path}`
      if ('environment' in needs) t.equal(res.json().error, 'environment_id_missing', `${what} needs environment-id`)
      else if ('bearer' in needs) t.equal(res.statusCode, 401, `${what} needs a token`)
      else t.not(res.statusCode, 401, `${what} needs nothing`)
    }
  })

  t.test('every 4xx/5xx answer references the error envelope', async (t) => {
    t.match(document.components.schemas.ErrorBody, {
      type: 'object',
      properties: { status: { const: 'error' }, error: {}, description: {}, userDescription: {}, message: {} },
    })
    for (const { method, path, operation } of all) {
      const errors = Object.entries(operation.responses).filter(([status]) => /^[45]/.test(status))
      t.ok(errors.length >= 2, `${method} ${path} has error answers`)
      for (const [status, response] of errors) {
        t.equal(
          response.content?.['application/json']?.schema?.$ref,
          '#/components/schemas/ErrorBody',
          `${method} ${path} ${status}`,
        )
      }
    }
  })
})

/** A service as its own `server.ts` runs it, with its OpenAPI document, on a loopback port. */
async function standalone(t: Test, mount: (server: ReturnType<typeof createServer>) => Promise<void>) {
  const server = createServer({ logLevel: 'silent' })
  await server.register(openApiPlugin, { title: 'one service' })
  await mount(server)
  t.teardown(() => server.close())
  return server.listen({ port: 0, host: '127.0.0.1' })
}

t.test('distributed: the merged document is the all-in-one document', async (t) => {
  const resources = await testResources(t)
  const common = { QUIRE_DATA_DIR: resources.dataDir }
  const usersUrl = await standalone(t, (server) =>
    mountService(server, users, { ...resources, config: loadConfig(ConfigSchema, common) }),
  )
  const documentsUrl = await standalone(t, (server) =>
    mountService(server, documents, { ...resources, config: loadConfig(ConfigSchema, common) }),
  )
  const allInOne = await build(t)
  const distributed = await build(t, { QUIRE_USERS_URL: usersUrl, QUIRE_DOCUMENTS_URL: documentsUrl })
  const local = (await allInOne.server.inject({ method: 'GET', url: '/docs/json' })).json()
  const merged = (await distributed.server.inject({ method: 'GET', url: '/docs/json' })).json()
  t.same(signature(merged.paths), signature(local.paths))
  t.ok(merged.components.schemas.ErrorBody)
})
