import { createQuireClient, type components, type QuireClient } from '@quire/client'

/**
 * A short session as an application writes it: every path, parameter, body and answer below is type-checked
 * against the generated schema (test/session.test.ts compiles this file).
 */
export async function session(baseUrl: string, credentials: { username: string; password: string }) {
  const anonymous = createQuireClient({ baseUrl })
  const login = await anonymous.POST('/auth/login', { body: credentials })
  if (!login.data) throw new Error(`login failed: ${login.error?.error}`)
  const token: string = login.data.data.accessToken

  const signedIn = createQuireClient({ baseUrl, token })
  const environments = await signedIn.GET('/api/v2/environments')
  const environmentId = environments.data?.data[0]?._id
  if (environmentId === undefined) throw new Error('no environment')

  const quire = createQuireClient({ baseUrl, token, environmentId })
  const definition = await quire.POST('/api/v2/document-definitions', { body: { name: 'notes' } })
  if (!definition.data) throw new Error(`no definition: ${definition.error?.description}`)
  const ddId = definition.data.data._id

  const created = await quire.POST('/api/v2/document-definitions/{ddId}/documents/new', {
    params: { path: { ddId } },
    body: { title: 'first' },
  })
  if (!created.data) throw new Error(`no document: ${created.error?.description}`)
  const id = created.data.data._id

  // An upload: the form's file typed as a Blob (a File keeps its name); openapi-fetch sends a FormData as is.
  const uploaded = await quire.POST('/api/v2/document-definitions/{ddId}/documents/{id}/attachments', {
    params: { path: { ddId, id }, query: { valuePath: 'files' } },
    body: { file: new File(['hello attachments'], 'hello.txt', { type: 'text/plain' }) },
    bodySerializer: ({ file }) => {
      const form = new FormData()
      for (const one of [file].flat()) form.append('file', one)
      return form
    },
  })
  const attachmentId = uploaded.data?.data.attachments[0]?._id
  if (attachmentId === undefined) throw new Error(`no upload: ${uploaded.error?.description}`)
  // A download: the bytes read as a Blob, whatever their type.
  const downloaded = await quire.GET('/api/v2/document-definitions/{ddId}/documents/{id}/attachments/{attachmentId}', {
    params: { path: { ddId, id, attachmentId } },
    parseAs: 'blob',
  })
  const file: Blob | undefined = downloaded.data

  const listed = await quire.GET('/api/v2/document-definitions/{ddId}/documents', {
    params: { path: { ddId }, query: { limit: 10 } },
  })
  const read = await quire.GET('/api/v2/document-definitions/{ddId}/documents/{id}', { params: { path: { ddId, id } } })

  const missing = await quire.GET('/api/v2/document-definitions/{ddId}/documents/{id}', {
    params: { path: { ddId, id: '000000000000000000000000' } },
  })
  // The error answer is typed: `error` is one of the API's codes, not any string.
  const code: components['schemas']['ErrorBody']['error'] | undefined = missing.error?.error

  return {
    environmentId,
    listedIds: listed.data?.data.map((document) => document._id) ?? [],
    readTitle: read.data?.title,
    downloaded: { type: downloaded.response.headers.get('content-type'), text: await file?.text() },
    missing: { status: missing.response.status, code, userDescription: missing.error?.userDescription },
  }
}

/** Never called: what the types refuse (compiling this file fails if any of these is accepted). */
export function refused(quire: QuireClient) {
  // @ts-expect-error a path the API does not have
  void quire.GET('/api/v2/document-definitions/{ddId}/documents/')
  // @ts-expect-error the path parameter is required
  void quire.GET('/api/v2/document-definitions/{ddId}/documents', { params: { path: {} } })
  // @ts-expect-error login takes a username and a password
  void quire.POST('/auth/login', { body: { user: 'x' } })
  return async (): Promise<boolean> => {
    const { error } = await quire.GET('/api/v2/users')
    // @ts-expect-error not an error code of the API
    return error?.error === 'no_such_code'
  }
}
