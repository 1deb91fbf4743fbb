// The floor under Quire's numbers: Quire's own HTTP stack (the server factory with its `info` request log,
// request ids and error envelope; the gateway's edge with security headers and load shedding) answering one
// constant document, with no authentication and no storage. What get-by-id costs beyond it is auth and storage.
// Its POST takes a create's JSON body in (parsed, as every route's body is) and answers the constant document
// as a create does: what a create costs beyond it is auth, validation and the durable write.
import { edgePlugin } from '../apps/gateway/dist/plugins/edge.js'
import { createServer, startServer } from '../packages/service-kit/dist/index.js'

const document = {
  _id: '6b0364b64a44064058d794b3',
  _createdOn: '2026-11-22T21:55:02.016Z',
  _createdByUserId: '6b0364b44a44064058d794ac',
  _lastModifiedOn: '2026-11-22T21:55:02.016Z',
  _lastModifiedByUserId: '6b0364b44a44064058d794ac',
  _documentDefinitionId: '6b0364b54a44064058d794ad',
  _environmentId: 'default',
  externalId: 'ext-5',
  category: 'c5',
  price: 9595,
  title: 'Document 5',
  tags: ['bench'],
  status: 'ready',
  accessGroups: [],
  _hash: '_cd6YDSJIyJGG88jac9H05ug9zUehxse',
  _permissions: { fullPermissions: true, userActionPermissions: ['read', 'create', 'update', 'delete'] },
}

const app = createServer({ logLevel: 'info' })
await app.register(edgePlugin, { corsOrigins: [], rateLimitPerMinute: 0, maxEventLoopDelay: 1000 })
app.get(
  '/api/v2/document-definitions/:ddId/documents/:id',
  { serializerCompiler: () => JSON.stringify },
  async (_request, reply) => reply.header('etag', `"${document._hash}"`).send(document),
)
app.post(
  '/api/v2/document-definitions/:ddId/documents/new',
  { serializerCompiler: () => JSON.stringify },
  async (_request, reply) =>
    reply.code(201).header('etag', `"${document._hash}"`).send({ status: 'ok', data: document }),
)
await startServer(app, 0, '127.0.0.1')
