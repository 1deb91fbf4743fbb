import t from 'tap'
import { build, createDefinition, createDocument, DEFINITIONS, documentsOf, storedDocuments } from '../helper.js'

// Clients generated from the spec send `Content-Type: application/json` on every call, with or without a body.
t.test('an empty body sent as application/json is no body wherever the body is optional', async (t) => {
  const { server, as, resources } = await build(t)
  const definition = await createDefinition(server, as.admin, { name: 'orders' })
  const member = { ...as.member, 'content-type': 'application/json' }
  const admin = { ...as.admin, 'content-type': 'application/json' }

  const created = await server.inject({ method: 'POST', url: `${documentsOf('orders')}/new`, headers: member })
  t.equal(created.statusCode, 201, 'POST .../new: a document with the defaults')
  t.match(created.json().data, { status: 'ready', accessGroups: [] })
  const stored = await storedDocuments(resources.store, definition._id).findOne({ _id: created.json().data._id })
  t.same(
    Object.keys(stored ?? {}).filter((key) => !key.startsWith('_')),
    ['status', 'accessGroups'],
  )

  const copy = await server.inject({ method: 'POST', url: `${DEFINITIONS}?sourceId=orders`, headers: admin })
  t.equal(copy.statusCode, 201, 'a copy of a definition: every name of its body is optional')
  const unnamed = await server.inject({ method: 'POST', url: DEFINITIONS, headers: admin, payload: '' })
  t.equal(unnamed.statusCode, 400, 'a new definition still needs its name')
  t.equal(unnamed.json().error, 'validation_error')

  const document = await createDocument(server, as.member, 'orders')
  const url = `${documentsOf('orders')}/${document._id}`
  const attachment = await server.inject({
    method: 'DELETE',
    url: `${url}/attachments/${'0'.repeat(24)}`,
    headers: member,
  })
  t.equal(attachment.statusCode, 404, 'DELETE of an attachment reaches the route (none here)')
  const removed = await server.inject({ method: 'DELETE', url, headers: member, payload: '' })
  t.equal(removed.statusCode, 200, 'DELETE of a document')
  const removedDefinition = await server.inject({
    method: 'DELETE',
    url: `${DEFINITIONS}/${copy.json().data._id}`,
    headers: admin,
  })
  t.equal(removedDefinition.statusCode, 200, 'DELETE of a definition')

  const put = await server.inject({
    method: 'PUT',
    url: `${documentsOf('orders')}/${created.json().data._id}`,
    headers: member,
  })
  t.equal(put.statusCode, 400, 'PUT needs its body')
})
