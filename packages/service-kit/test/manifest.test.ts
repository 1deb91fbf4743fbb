import t from 'tap'
import type { FastifyPluginAsync } from 'fastify'
import { createServer, mountService, type ServiceManifest } from '../src/index.js'

const manifest = (app: FastifyPluginAsync): ServiceManifest<Record<string, never>> => ({
  name: 'things',
  prefixes: ['/api/v2/things', '/auth'],
  app,
})

t.test('a service whose routes lie under its prefixes is mounted and answers', async (t) => {
  const server = createServer({ logLevel: 'silent' })
  t.teardown(() => server.close())
  await mountService(
    server,
    manifest(async (app) => {
      app.get('/api/v2/things', async () => 'list')
      app.register(async (things) => things.get('/:id', async () => 'one'), { prefix: '/api/v2/things' })
      app.post('/auth', async () => 'auth')
    }),
    {},
  )
  t.equal((await server.inject({ method: 'GET', url: '/api/v2/things/7' })).body, 'one')
  t.equal((await server.inject({ method: 'POST', url: '/auth' })).body, 'auth')
})

t.test('a route outside the prefixes stops the start: it would be a 404 behind the proxy', async (t) => {
  for (const url of ['/api/v2/other', '/api/v2/thingsmore', '/authentic']) {
    const server = createServer({ logLevel: 'silent' })
    t.teardown(() => server.close())
    await t.rejects(
      mountService(
        server,
        manifest(async (app) => {
          app.get(url, async () => 'stray')
        }),
        {},
      ).then(() => server.ready()),
      { message: `service things registers ${url}, outside its prefixes` },
      url,
    )
  }
})
