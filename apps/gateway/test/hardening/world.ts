import { randomBytes } from 'node:crypto'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { accessToken, createEnvironment, createUser, type Teardown } from '@quire/testing'
import type { CollectionSpec, StoredRecord } from '@quire/records'
import type { LocalResources } from '../../src/app.js'
import { build, type Built } from '../helper.js'

/** Who calls: the columns of the authorization matrix. */
export const CALLERS = [
  'noToken',
  'garbageToken',
  'expiredToken',
  'revokedLongLivedToken',
  'deactivatedUser',
  'otherEnvironmentUser',
  'member',
  'administrator',
  'superAdministrator',
] as const
export type Caller = (typeof CALLERS)[number]

export const ENV = 'acme'
export const OTHER_ENV = 'globex'
export const PASSWORD = 'a long enough password'

/** Routes the hardening suites leave alone: served by plugins (API docs, the console's files and icon), not by services. */
export const isInfrastructure = (url: string): boolean =>
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url === '/console' ||
  url === '/favicon.ico' ||
  url.startsWith('/console/') ||
  url === '/health' ||
  url === '/ready'

/** `GET /a/` and `HEAD /a` are Fastify's companions of `GET /a`: one row covers them. */
export const routeKey = ({ method, url }: { method: string; url: string }): string =>
  `${method === 'HEAD' ? 'GET' : method} ${url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url}`

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** An inject request; a header set to `undefined` is left out (to drop `environment-id`, say). */
export type Request = Omit<InjectOptions, 'headers' | 'url'> & {
  url: string
  headers?: Record<string, string | undefined>
}

export interface Multipart {
  payload: Buffer
  headers: Record<string, string>
}

/** A `multipart/form-data` body with the given file parts (no library: the bytes are what the test sends). */
export function multipart(
  files: { field?: string; filename: string; contentType?: string; content: string | Buffer }[],
): Multipart {
  const boundary = `----quire${randomBytes(8).toString('hex')}`
  const parts = files.map((file) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename}"\r\n` +
          `Content-Type: ${file.contentType ?? 'text/plain'}\r\n\r\n`,
      ),
      Buffer.from(file.content),
      Buffer.from('\r\n'),
    ]),
  )
  return {
    payload: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  }
}

export interface World extends Built {
  /** The bearer token each caller sends (none for `noToken`). */
  tokens: Record<Caller, string | undefined>
  userIds: Record<'administrator' | 'member' | 'superAdministrator' | 'target', string>
  definition: { _id: string; name: string }
  documentId: string
  packageId: string
  versionId: string
  /** Whether the attachment routes are mounted (they are being added while this suite is written). */
  hasAttachments: boolean
  attachmentId: string
  /** `inject` as the given caller in `acme` (headers may add or override). */
  call(caller: Caller, options: Request): Promise<LightMyRequestResponse>
  /** As the administrator; throws unless the status is the expected one, so setup mistakes show at once. */
  setup(options: Request, expected: number): Promise<{ data: Json } & Record<string, Json>>
  /** A fresh document in the definition, for calls that consume one. */
  newDocument(fields?: Record<string, Json>): Promise<string>
  /** A fresh user of `acme` only. */
  newUser(): Promise<string>
  /** A fresh attachment on a fresh document. */
  newAttachment(): Promise<{ documentId: string; attachmentId: string }>
}

/**
 * The all-in-one server with two environments and one caller of each kind, plus a definition, a document,
 * a package with a version and (when mounted) an attachment, so a route's parameters point at something real.
 */
export async function world(
  t: Teardown,
  env: Record<string, string> = {},
  wrap?: (real: LocalResources) => LocalResources,
): Promise<World> {
  const built = await build(t, env, wrap)
  const { server, resources } = built
  const { store, keys } = resources
  await createEnvironment(store, ENV)
  await createEnvironment(store, OTHER_ENV)
  const administrator = await createUser(store, {
    username: 'acme-admin',
    environments: { [ENV]: { administrator: true } },
  })
  const member = await createUser(store, { username: 'acme-member', environments: { [ENV]: {} } })
  const deactivated = await createUser(store, { username: 'acme-gone', environments: { [ENV]: { active: false } } })
  const outsider = await createUser(store, {
    username: 'globex-admin',
    environments: { [OTHER_ENV]: { administrator: true } },
  })
  const superAdministrator = await createUser(store, { username: 'root', superAdministrator: true })
  const sign = (userId: string) => accessToken(keys.privateKey, userId)

  const tokens: Record<Caller, string | undefined> = {
    noToken: undefined,
    garbageToken: 'garbage.garbage.garbage-garbage',
    expiredToken: accessToken(keys.privateKey, member._id, { expiresIn: -60 }),
    revokedLongLivedToken: undefined,
    deactivatedUser: sign(deactivated._id),
    otherEnvironmentUser: sign(outsider._id),
    member: sign(member._id),
    administrator: sign(administrator._id),
    superAdministrator: sign(superAdministrator._id),
  }

  const call: World['call'] = (caller, options) => {
    const token = tokens[caller]
    const merged: Record<string, string | undefined> = {
      'environment-id': ENV,
      authorization: token && `Bearer ${token}`,
      ...options.headers,
    }
    const headers = Object.fromEntries(
      Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined),
    )
    return server.inject({ ...options, headers })
  }
  const setup: World['setup'] = async (options, expected) => {
    const res = await call('administrator', options)
    if (res.statusCode !== expected) {
      throw new Error(`setup ${options.method ?? 'GET'} ${options.url}: ${res.statusCode} ${res.body}`)
    }
    return res.json()
  }
  const asSuper = async (options: Request) => {
    const res = await call('superAdministrator', { ...options, headers: { 'environment-id': undefined } })
    if (res.statusCode !== 201) throw new Error(`setup ${options.url}: ${res.statusCode} ${res.body}`)
    return res.json<{ data: { _id: string } }>().data._id
  }

  // A long-lived token of the member, revoked at once.
  const issued = await setup(
    { method: 'POST', url: `/api/v2/users/${member._id}/long-lived-tokens`, payload: { name: 'revoked' } },
    201,
  )
  const [llt] = issued.data as { _id: string; token: string }[]
  if (!llt) throw new Error('no long-lived token issued')
  await setup({ method: 'DELETE', url: `/api/v2/users/${member._id}/long-lived-tokens/${llt._id}` }, 200)
  tokens.revokedLongLivedToken = llt.token

  const definition = (
    await setup(
      {
        method: 'POST',
        url: '/api/v2/document-definitions',
        payload: { name: 'invoices', fields: { title: { type: 'string' }, files: { type: 'attachment' } } },
      },
      201,
    )
  ).data as { _id: string; name: string }
  const documentsUrl = `/api/v2/document-definitions/${definition._id}/documents`
  const newDocument: World['newDocument'] = async (fields = { title: 'seed' }) =>
    ((await setup({ method: 'POST', url: `${documentsUrl}/new`, payload: fields }, 201)).data as { _id: string })._id

  const packageId = await asSuper({
    method: 'POST',
    url: '/api/v2/packages',
    payload: { name: 'crm', label: 'CRM', shortDescription: 'Contacts' },
  })
  const versionId = await asSuper({
    method: 'POST',
    url: `/api/v2/packages/${packageId}/versions`,
    payload: { versionNumber: '1.0.0', availableOnMarketplace: true },
  })

  const newUser: World['newUser'] = async () => {
    const created = await setup(
      {
        method: 'POST',
        url: '/api/v2/users',
        payload: { username: `u-${randomBytes(6).toString('hex')}`, password: PASSWORD },
      },
      201,
    )
    return (created.data as { _id: string }[])[0]?._id ?? ''
  }

  const hasAttachments = built.routes.some((route) => route.url.endsWith('/attachments/:attachmentId'))
  const newAttachment: World['newAttachment'] = async () => {
    const documentId = await newDocument()
    const body = multipart([{ filename: 'hello.txt', content: 'hello world' }])
    const saved = await setup(
      { method: 'POST', url: `${documentsUrl}/${documentId}/attachments?valuePath=files`, ...body },
      201,
    )
    const [attachment] = (saved.data as { attachments: { _id: string }[] }).attachments
    return { documentId, attachmentId: attachment?._id ?? '' }
  }
  const seeded = hasAttachments ? await newAttachment() : { documentId: await newDocument(), attachmentId: 'none' }

  return {
    ...built,
    tokens,
    userIds: {
      administrator: administrator._id,
      member: member._id,
      superAdministrator: superAdministrator._id,
      target: await newUser(),
    },
    definition,
    documentId: seeded.documentId,
    packageId,
    versionId,
    hasAttachments,
    attachmentId: seeded.attachmentId,
    call,
    setup,
    newDocument,
    newUser,
    newAttachment,
  }
}

/** Every record of the given collections (as their owners declare them), for before/after comparisons. */
export async function snapshot(
  resources: LocalResources,
  specs: readonly CollectionSpec<StoredRecord>[],
): Promise<Record<string, unknown[]>> {
  const entries = await Promise.all(
    specs.map(async (spec) => [spec.name, await spec.in(resources.store).find({}, { sort: { _id: 1 } })] as const),
  )
  return Object.fromEntries(entries)
}

/** The envelope every refusal carries (API.md, "Errors"). */
export const ENVELOPE = {
  status: 'error',
  error: String,
  description: String,
  userDescription: String,
  message: String,
} as const
