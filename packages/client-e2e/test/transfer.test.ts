import t from 'tap'
import { testResources } from '@quire/testing'
import { ADMIN, serve } from './serve.js'
import { createQuireClient } from '@quire/client'

t.test('a definition exported as CSV and imported back, through the typed client', async (t) => {
  const resources = await testResources(t)
  const baseUrl = await serve(t, resources)
  const login = await createQuireClient({ baseUrl }).POST('/auth/login', { body: ADMIN })
  const quire = createQuireClient({ baseUrl, token: login.data?.data.accessToken, environmentId: 'default' })
  const fields = { title: { type: 'string' as const, required: true } }
  for (const name of ['notes', 'copies']) await quire.POST('/api/v2/document-definitions', { body: { name, fields } })
  await quire.POST('/api/v2/document-definitions/{ddId}/documents/new', {
    params: { path: { ddId: 'notes' } },
    body: { title: 'first' },
  })

  // The file as text: the export's answer is typed as bytes in each format's media type.
  const exported = await quire.GET('/api/v2/document-definitions/{ddId}/documents/export', {
    params: { path: { ddId: 'notes' }, query: { format: 'csv', fields: '{"title":1}' } },
    parseAs: 'text',
  })
  t.equal(exported.response.headers.get('content-type'), 'text/csv; charset=utf-8')
  t.equal(exported.data?.split('\r\n')[0], '_id,title')

  // The body is sent as it is (no JSON encoding), with the format's type.
  const imported = await quire.POST('/api/v2/document-definitions/{ddId}/documents/import', {
    params: { path: { ddId: 'copies' } },
    headers: { 'content-type': 'text/csv' },
    body: `${exported.data ?? ''}x,\r\n`,
    bodySerializer: (body) => body as string,
  })
  t.same(imported.data?.data, {
    created: 1,
    failed: 1,
    errors: [{ row: 2, code: 'validation_error', description: 'body/title: Expected required property' }],
  })
})
