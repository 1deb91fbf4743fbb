import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { createServer, describeRoutes, openApiPlugin, type OpenApiDocument } from '../src/index.js'

/** Two route plugins as services write them: routes at `/` under a prefix, one mounted twice, one public. */
async function routes(app: FastifyInstance) {
  await app.register(
    async (things) => {
      things.get(
        '/',
        { schema: { querystring: Type.Object({ limit: Type.Integer({ default: 100 }), after: Type.String() }) } },
        async function listThings() {
          return []
        },
      )
      things.route({
        method: ['GET', 'HEAD'],
        url: '/:thingId/file',
        handler: async function downloadFile() {
          return ''
        },
      })
    },
    { prefix: '/api/v2/things' },
  )
  for (const prefix of ['/auth', '/api/v2/auth']) {
    await app.register(
      async (auth) => {
        describeRoutes(auth, { auth: 'none' })
        auth.post('/login', async function login() {
          return {}
        })
        await auth.register(async (own) => {
          describeRoutes(own, { auth: 'bearer', tag: 'account' })
          own.post('/password', async function changePassword() {
            return {}
          })
        })
      },
      { prefix },
    )
  }
  await app.register(async (hidden) => {
    describeRoutes(hidden, { hide: true })
    hidden.all('/elsewhere/*', async () => ({}))
  })
}

async function documentOf(remotes?: () => Promise<OpenApiDocument[]>) {
  const app = createServer({ logLevel: 'silent' })
  await app.register(openApiPlugin, { title: 'test', remotes })
  await app.register(routes)
  await app.ready()
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  await app.close()
  return document
}

t.test('paths, names, tags, security and errors a generator can use', async (t) => {
  const document = await documentOf()
  t.same(Object.keys(document.paths).sort(), [
    '/api/v2/auth/login',
    '/api/v2/auth/password',
    '/api/v2/things',
    '/api/v2/things/{thingId}/file',
    '/auth/login',
    '/auth/password',
  ])
  t.match(document.paths['/api/v2/things'].get, {
    operationId: 'listThings',
    summary: 'List things',
    tags: ['things'],
    security: [{ bearer: [], environment: [] }],
  })
  t.match(
    document.paths['/api/v2/things'].get.parameters,
    [
      { name: 'limit', required: false },
      { name: 'after', required: true },
    ],
    'a parameter with a default is optional to the client',
  )
  t.equal(document.paths['/api/v2/things/{thingId}/file'].get.operationId, 'downloadFile')
  t.equal(document.paths['/api/v2/things/{thingId}/file'].head.operationId, 'downloadFileHead')
  t.match(document.paths['/auth/login'].post, { operationId: 'login', tags: ['auth'], security: [] })
  t.match(document.paths['/api/v2/auth/login'].post, { operationId: 'loginApiV2', security: [] })
  t.match(document.paths['/auth/password'].post, {
    operationId: 'changePassword',
    tags: ['account'],
    security: [{ bearer: [] }],
  })
  t.equal(document.paths['/api/v2/auth/password'].post.operationId, 'changePasswordApiV2')
  t.ok(document.components.schemas.ErrorBody)
  t.same(document.paths['/auth/login'].post.responses['4XX'].content, {
    'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } },
  })
  t.ok(document.paths['/auth/login'].post.responses['5XX'])
})

t.test('merged with other services: ids stay unique, their errors keep the reference', async (t) => {
  const remote: OpenApiDocument = {
    paths: { '/api/v2/others': { get: { operationId: 'listThings', responses: { 200: { description: 'ok' } } } } },
    components: { schemas: {} },
  }
  const document = await documentOf(async () => [remote])
  t.equal(document.paths['/api/v2/things'].get.operationId, 'listThings')
  t.equal(document.paths['/api/v2/others'].get.operationId, 'listThings2')
  t.ok(document.paths['/api/v2/others'].get.responses['4XX'])
})

t.test('a body read in several media types declares each, with the same schema', async (t) => {
  const app = createServer({ logLevel: 'silent' })
  await app.register(openApiPlugin, { title: 'test' })
  const body = Type.Object({ name: Type.String() })
  await app.register(async (things) => {
    things.patch(
      '/things/:id',
      { schema: { body, bodyMediaTypes: ['application/json', 'application/merge-patch+json'] } },
      async function patchThing() {
        return {}
      },
    )
    things.put('/things/:id', { schema: { body } }, async function replaceThing() {
      return {}
    })
  })
  await app.ready()
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  await app.close()
  const { content } = document.paths['/things/{id}'].patch.requestBody
  t.same(Object.keys(content), ['application/json', 'application/merge-patch+json'])
  t.same(content['application/merge-patch+json'], content['application/json'])
  t.same(Object.keys(document.paths['/things/{id}'].put.requestBody.content), ['application/json'], 'unset: JSON')
  t.notOk('bodyMediaTypes' in document.paths['/things/{id}'].patch, 'not a field of the operation')
})
