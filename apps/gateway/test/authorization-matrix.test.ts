import t from 'tap'
import { randomBytes } from 'node:crypto'
import { USERS_COLLECTIONS } from '@quire/users-service'
import {
  CALLERS,
  ENV,
  ENVELOPE,
  PASSWORD,
  isInfrastructure,
  multipart,
  routeKey,
  type Caller,
  type Request,
  type World,
  world,
} from './hardening/world.js'

/**
 * Who may call a route. `public`: anyone. `signedIn`: any valid token, no environment. `member` /
 * `administrator`: of the `environment-id` given. `superAdministrator`: platform-wide.
 * `installationsList`: administrators, every refusal a 401 (spec).
 */
type Access = 'public' | 'signedIn' | 'member' | 'administrator' | 'superAdministrator' | 'installationsList'

const UNAUTHENTICATED: readonly Caller[] = ['noToken', 'garbageToken', 'expiredToken', 'revokedLongLivedToken']

/** The status each caller gets from a route of that access whose success status is `ok`. */
function expected(access: Access, ok: number): Record<Caller, number> {
  const allowed: Record<Access, readonly Caller[]> = {
    public: CALLERS,
    signedIn: ['deactivatedUser', 'otherEnvironmentUser', 'member', 'administrator', 'superAdministrator'],
    member: ['member', 'administrator', 'superAdministrator'],
    administrator: ['administrator', 'superAdministrator'],
    installationsList: ['administrator', 'superAdministrator'],
    superAdministrator: ['superAdministrator'],
  }
  const refused = access === 'installationsList' ? 401 : 403
  return Object.fromEntries(
    CALLERS.map((caller) => [
      caller,
      allowed[access].includes(caller) ? ok : UNAUTHENTICATED.includes(caller) ? 401 : refused,
    ]),
  ) as Record<Caller, number>
}

interface Row {
  access: Access
  ok: number
  /** Called once per caller, so a call that consumes its target (a delete) gets a fresh one. */
  request: (w: World, caller: Caller) => Promise<Omit<Request, 'method'>> | Omit<Request, 'method'>
}

const unique = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`
const docs = (w: World) => `/api/v2/document-definitions/${w.definition._id}/documents`

/** Paused: the matrix's writes queue no delivery to it. */
const WEBHOOK = { url: 'https://example.com/hook', events: ['document.create'], paused: true }

async function newWebhook(w: World): Promise<string> {
  const created = await w.setup({ method: 'POST', url: '/api/v2/webhooks', payload: WEBHOOK }, 201)
  return (created.data as { _id: string })._id
}

/** One webhook for the rows that leave it in place (an environment may have 20). */
const sharedWebhooks = new WeakMap<World, Promise<string>>()
function sharedWebhook(w: World): Promise<string> {
  let id = sharedWebhooks.get(w)
  if (!id) {
    id = newWebhook(w)
    sharedWebhooks.set(w, id)
  }
  return id
}

async function freshDefinition(w: World): Promise<string> {
  const created = await w.setup(
    { method: 'POST', url: '/api/v2/document-definitions', payload: { name: unique('dd') } },
    201,
  )
  return (created.data as { _id: string })._id
}

/** The world's definition declares a manual action `touch` (`return 1`), added once per world. */
const manualActions = new WeakMap<World, Promise<unknown>>()
async function manualAction(w: World): Promise<string> {
  if (!manualActions.has(w)) {
    const actions = [{ name: 'touch', triggers: ['manual'], source: 'return 1' }]
    manualActions.set(
      w,
      w.setup({ method: 'PATCH', url: `/api/v2/document-definitions/${w.definition._id}`, payload: { actions } }, 200),
    )
  }
  await manualActions.get(w)
  return 'touch'
}

/** An environment nobody belongs to, for calls that change or remove one. */
async function freshEnvironment(w: World): Promise<string> {
  const _id = unique('env')
  const res = await w.call('superAdministrator', {
    method: 'POST',
    url: '/api/v2/environments',
    payload: { _id, name: 'Fresh' },
    headers: { 'environment-id': undefined },
  })
  if (res.statusCode !== 201) throw new Error(`setup environment: ${res.statusCode} ${res.body}`)
  return _id
}

async function freshPackage(w: World): Promise<{ packageId: string; versionId: string }> {
  const asSuper = async (url: string, payload: Record<string, unknown>) => {
    const res = await w.call('superAdministrator', { method: 'POST', url, payload })
    if (res.statusCode !== 201) throw new Error(`setup ${url}: ${res.statusCode} ${res.body}`)
    return res.json<{ data: { _id: string } }>().data._id
  }
  const packageId = await asSuper('/api/v2/packages', { name: unique('pkg'), label: 'P', shortDescription: '' })
  return {
    packageId,
    versionId: await asSuper(`/api/v2/packages/${packageId}/versions`, {
      versionNumber: '1.0.0',
      availableOnMarketplace: true,
    }),
  }
}

/** A live password-reset token, read from the mail outbox as its recipient would. */
async function resetToken(w: World): Promise<string> {
  const username = unique('reset')
  const email = `${username}@example.com`
  await w.setup({ method: 'POST', url: '/api/v2/users', payload: { username, email } }, 201)
  await w.setup({ method: 'POST', url: '/auth/reset-password', payload: { email } }, 200)
  const mails = await USERS_COLLECTIONS.mailOutbox.in(w.resources.store).find({})
  const token = mails
    .map((mail) => JSON.stringify(mail))
    .filter((mail) => mail.includes(email))
    .map((mail) => /Reset token: ([\w-]+)/.exec(mail)?.[1])[0]
  if (!token) throw new Error(`no reset mail for ${email}`)
  return token
}

const auth = (prefix: '/auth' | '/api/v2/auth'): Record<string, Row> => ({
  [`POST ${prefix}/login`]: {
    access: 'public',
    ok: 200,
    request: async (w) => {
      const userId = await w.newUser()
      const [user] = (await w.setup({ url: `/api/v2/users/${userId}` }, 200)).data as { username: string }[]
      return { url: `${prefix}/login`, payload: { username: user?.username ?? '', password: PASSWORD } }
    },
  },
  [`POST ${prefix}/sessions`]: {
    access: 'public',
    ok: 200,
    request: async (w) => {
      const userId = await w.newUser()
      const [user] = (await w.setup({ url: `/api/v2/users/${userId}` }, 200)).data as { username: string }[]
      return { url: `${prefix}/sessions`, payload: { username: user?.username ?? '', password: PASSWORD } }
    },
  },
  [`POST ${prefix}/sessions/refresh`]: {
    access: 'public',
    ok: 200,
    request: async (w) => {
      const userId = await w.newUser()
      const [user] = (await w.setup({ url: `/api/v2/users/${userId}` }, 200)).data as { username: string }[]
      const opened = await w.setup(
        { method: 'POST', url: `${prefix}/sessions`, payload: { username: user?.username ?? '', password: PASSWORD } },
        200,
      )
      return {
        url: `${prefix}/sessions/refresh`,
        payload: { refreshToken: (opened.data as { refreshToken: string }).refreshToken },
      }
    },
  },
  // Unknown or not, a logout answers the same: no caller learns anything from it.
  [`POST ${prefix}/sessions/logout`]: {
    access: 'public',
    ok: 200,
    request: () => ({ url: `${prefix}/sessions/logout`, payload: { refreshToken: 'x'.repeat(43) } }),
  },
  [`GET ${prefix}/sessions`]: { access: 'signedIn', ok: 200, request: () => ({ url: `${prefix}/sessions` }) },
  // A made-up id: only a signed-in caller gets as far as the lookup among its own sessions.
  [`DELETE ${prefix}/sessions/:sessionId`]: {
    access: 'signedIn',
    ok: 404,
    request: () => ({ url: `${prefix}/sessions/${unique('session')}` }),
  },
  [`POST ${prefix}/reset-password`]: {
    access: 'public',
    ok: 200,
    request: () => ({ url: `${prefix}/reset-password`, payload: { username: 'nobody' } }),
  },
  [`POST ${prefix}/reset-password/confirm`]: {
    access: 'public',
    ok: 200,
    request: async (w) => ({
      url: `${prefix}/reset-password/confirm`,
      payload: { token: await resetToken(w), password: PASSWORD },
    }),
  },
  [`POST ${prefix}/2fa/setup`]: { access: 'signedIn', ok: 200, request: () => ({ url: `${prefix}/2fa/setup` }) },
  // A wrong code: what matters here is that only a signed-in caller gets as far as the code check.
  [`POST ${prefix}/2fa/enable`]: {
    access: 'signedIn',
    ok: 400,
    request: () => ({ url: `${prefix}/2fa/enable`, payload: { code: '000000' } }),
  },
  [`POST ${prefix}/reset-2FA`]: {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `${prefix}/reset-2FA`, payload: { userId: await w.newUser() } }),
  },
  // Without the current password: only a signed-in caller gets as far as the body check.
  [`POST ${prefix}/password`]: {
    access: 'signedIn',
    ok: 400,
    request: () => ({ url: `${prefix}/password`, payload: {} }),
  },
  [`POST ${prefix}/2fa/disable`]: {
    access: 'signedIn',
    ok: 400,
    request: () => ({ url: `${prefix}/2fa/disable`, payload: {} }),
  },
  [`POST ${prefix}/2fa/recovery-codes`]: {
    access: 'signedIn',
    ok: 400,
    request: () => ({ url: `${prefix}/2fa/recovery-codes`, payload: {} }),
  },
})

/**
 * Run last, in this order: signing out everywhere ends every caller's session, so the second finds each access
 * token refused (401 for everyone).
 */
const SIGN_OUT: Record<string, Row> = {
  'POST /api/v2/auth/sign-out-everywhere': {
    access: 'signedIn',
    ok: 200,
    request: () => ({ url: '/api/v2/auth/sign-out-everywhere' }),
  },
  'POST /auth/sign-out-everywhere': {
    access: 'public',
    ok: 401,
    request: () => ({ url: '/auth/sign-out-everywhere' }),
  },
}
const LAST = Object.keys(SIGN_OUT)

/** Every route of the API: a route without a row fails the suite. */
const TABLE: Record<string, Row> = {
  'GET /api/v2/document-definitions': {
    access: 'member',
    ok: 200,
    request: () => ({ url: '/api/v2/document-definitions' }),
  },
  'GET /api/v2/document-definitions/:ddId': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `/api/v2/document-definitions/${w.definition.name}` }),
  },
  'POST /api/v2/document-definitions': {
    access: 'administrator',
    ok: 201,
    request: () => ({ url: '/api/v2/document-definitions', payload: { name: unique('dd') } }),
  },
  'PUT /api/v2/document-definitions/:ddId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({
      url: `/api/v2/document-definitions/${await freshDefinition(w)}`,
      payload: { name: unique('dd'), label: 'Replaced' },
    }),
  },
  'PATCH /api/v2/document-definitions/:ddId': {
    access: 'administrator',
    ok: 200,
    request: (w) => ({ url: `/api/v2/document-definitions/${w.definition._id}`, payload: { label: unique('label') } }),
  },
  'DELETE /api/v2/document-definitions/:ddId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/document-definitions/${await freshDefinition(w)}` }),
  },

  'GET /api/v2/document-definitions/:ddId/action-runs': {
    access: 'administrator',
    ok: 200,
    request: (w) => ({ url: `/api/v2/document-definitions/${w.definition._id}/action-runs` }),
  },

  'POST /api/v2/webhooks': {
    access: 'administrator',
    ok: 201,
    request: () => ({ url: '/api/v2/webhooks', payload: WEBHOOK }),
  },
  'GET /api/v2/webhooks': { access: 'administrator', ok: 200, request: () => ({ url: '/api/v2/webhooks' }) },
  'GET /api/v2/webhooks/:webhookId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/webhooks/${await sharedWebhook(w)}` }),
  },
  'PATCH /api/v2/webhooks/:webhookId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/webhooks/${await sharedWebhook(w)}`, payload: { paused: true } }),
  },
  'DELETE /api/v2/webhooks/:webhookId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/webhooks/${await newWebhook(w)}` }),
  },
  'POST /api/v2/webhooks/:webhookId/rotate-secret': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/webhooks/${await sharedWebhook(w)}/rotate-secret` }),
  },
  'GET /api/v2/webhooks/:webhookId/deliveries': {
    access: 'administrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/webhooks/${await sharedWebhook(w)}/deliveries` }),
  },
  // A made-up delivery: only an administrator gets as far as looking it up.
  'POST /api/v2/webhooks/:webhookId/deliveries/:deliveryId/redeliver': {
    access: 'administrator',
    ok: 404,
    request: async (w) => ({
      url: `/api/v2/webhooks/${await sharedWebhook(w)}/deliveries/${'0'.repeat(24)}/redeliver`,
    }),
  },

  'GET /api/v2/document-definitions/:ddId/documents': { access: 'member', ok: 200, request: (w) => ({ url: docs(w) }) },
  'GET /api/v2/document-definitions/:ddId/documents/export': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `${docs(w)}/export?format=ndjson` }),
  },
  'POST /api/v2/document-definitions/:ddId/documents/import': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `${docs(w)}/import`, payload: [{ title: 'imported' }] }),
  },
  // A malformed resume token: the stream never ends, so only a caller let in gets as far as the header's check.
  'GET /api/v2/document-definitions/:ddId/documents/changes': {
    access: 'member',
    ok: 400,
    request: (w) => ({ url: `${docs(w)}/changes`, headers: { 'last-event-id': '!' } }),
  },
  'GET /api/v2/document-definitions/:ddId/documents/:id': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `${docs(w)}/${w.documentId}` }),
  },
  'POST /api/v2/document-definitions/:ddId/documents/new': {
    access: 'member',
    ok: 201,
    request: (w) => ({ url: `${docs(w)}/new`, payload: { title: 'new' } }),
  },
  'POST /api/v2/document-definitions/:ddId/documents/bulk': {
    access: 'member',
    ok: 200,
    request: async (w) => ({
      url: `${docs(w)}/bulk`,
      payload: {
        operations: [
          { op: 'create', body: { title: 'bulk' } },
          { op: 'patch', id: await w.newDocument(), body: { title: 'bulk patched' } },
        ],
      },
    }),
  },
  'PUT /api/v2/document-definitions/:ddId/documents/:id': {
    access: 'member',
    ok: 200,
    request: async (w) => ({ url: `${docs(w)}/${await w.newDocument()}`, payload: { title: 'replaced' } }),
  },
  'PATCH /api/v2/document-definitions/:ddId/documents/:id': {
    access: 'member',
    ok: 200,
    request: async (w) => ({ url: `${docs(w)}/${await w.newDocument()}`, payload: { title: 'patched' } }),
  },
  'DELETE /api/v2/document-definitions/:ddId/documents/:id': {
    access: 'member',
    ok: 200,
    request: async (w) => ({ url: `${docs(w)}/${await w.newDocument()}` }),
  },

  'POST /api/v2/document-definitions/:ddId/documents/:id/actions/:name': {
    access: 'member',
    ok: 200,
    request: async (w) => ({ url: `${docs(w)}/${w.documentId}/actions/${await manualAction(w)}`, payload: {} }),
  },

  'POST /api/v2/document-definitions/:ddId/documents/:id/attachments': {
    access: 'member',
    ok: 201,
    request: async (w) => ({
      url: `${docs(w)}/${await w.newDocument()}/attachments?valuePath=files`,
      ...multipart([{ filename: 'a.txt', content: 'a' }]),
    }),
  },
  'PUT /api/v2/document-definitions/:ddId/documents/:id/attachments': {
    access: 'member',
    ok: 201,
    request: async (w) => ({
      url: `${docs(w)}/${await w.newDocument()}/attachments?valuePath=files`,
      ...multipart([{ filename: 'a.txt', content: 'a' }]),
    }),
  },
  'GET /api/v2/document-definitions/:ddId/documents/:id/attachments/:attachmentId': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `${docs(w)}/${w.documentId}/attachments/${w.attachmentId}` }),
  },
  'DELETE /api/v2/document-definitions/:ddId/documents/:id/attachments/:attachmentId': {
    access: 'member',
    ok: 200,
    request: async (w) => {
      const { documentId, attachmentId } = await w.newAttachment()
      return { url: `${docs(w)}/${documentId}/attachments/${attachmentId}` }
    },
  },
  'POST /api/v2/documents/copyAttachments': {
    access: 'member',
    ok: 200,
    request: async (w) => ({
      url: '/api/v2/documents/copyAttachments',
      payload: [
        {
          source: { ddName: w.definition.name, _id: w.documentId, valuePath: 'files' },
          target: { ddName: w.definition.name, _id: await w.newDocument(), valuePath: 'files' },
        },
      ],
    }),
  },

  ...auth('/auth'),
  ...auth('/api/v2/auth'),

  'GET /api/v2/users': { access: 'member', ok: 200, request: () => ({ url: '/api/v2/users' }) },
  'GET /api/v2/users/:userId': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `/api/v2/users/${w.userIds.target}` }),
  },
  'GET /api/v2/users/:userId/reference-data': {
    access: 'member',
    ok: 200,
    request: (w) => ({ url: `/api/v2/users/${w.userIds.target}/reference-data` }),
  },
  'POST /api/v2/users': {
    access: 'administrator',
    ok: 201,
    request: () => ({ url: '/api/v2/users', payload: { username: unique('user') } }),
  },
  'PATCH /api/v2/users/:userId': {
    access: 'administrator',
    ok: 200,
    request: (w) => ({ url: `/api/v2/users/${w.userIds.target}`, payload: { name: 'Renamed' } }),
  },
  'POST /api/v2/users/:userId/long-lived-tokens': {
    access: 'administrator',
    ok: 201,
    request: (w) => ({ url: `/api/v2/users/${w.userIds.target}/long-lived-tokens`, payload: { name: 'ci' } }),
  },
  'GET /api/v2/users/:userId/long-lived-tokens': {
    access: 'administrator',
    ok: 200,
    request: (w) => ({ url: `/api/v2/users/${w.userIds.target}/long-lived-tokens` }),
  },
  'DELETE /api/v2/users/:userId/long-lived-tokens/:tokenId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => {
      const issued = await w.setup(
        { method: 'POST', url: `/api/v2/users/${w.userIds.target}/long-lived-tokens`, payload: {} },
        201,
      )
      const [token] = issued.data as { _id: string }[]
      return { url: `/api/v2/users/${w.userIds.target}/long-lived-tokens/${token?._id ?? ''}` }
    },
  },

  'POST /api/v2/environments': {
    access: 'superAdministrator',
    ok: 201,
    request: () => ({ url: '/api/v2/environments', payload: { _id: unique('env'), name: 'New' } }),
  },
  // Each signed-in user gets the active environments it belongs to; a super-administrator gets them all.
  'GET /api/v2/environments': { access: 'signedIn', ok: 200, request: () => ({ url: '/api/v2/environments' }) },
  'GET /api/v2/environments/:environmentId': {
    access: 'superAdministrator',
    ok: 200,
    request: () => ({ url: `/api/v2/environments/${ENV}` }),
  },
  'PATCH /api/v2/environments/:environmentId': {
    access: 'superAdministrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/environments/${await freshEnvironment(w)}`, payload: { name: 'Renamed' } }),
  },
  'DELETE /api/v2/environments/:environmentId': {
    access: 'superAdministrator',
    ok: 200,
    request: async (w) => ({ url: `/api/v2/environments/${await freshEnvironment(w)}` }),
  },

  'GET /api/v2/packages': { access: 'signedIn', ok: 200, request: () => ({ url: '/api/v2/packages' }) },
  'POST /api/v2/packages': {
    access: 'superAdministrator',
    ok: 201,
    request: () => ({ url: '/api/v2/packages', payload: { name: unique('pkg'), label: 'P', shortDescription: '' } }),
  },
  'POST /api/v2/packages/:packageId/versions': {
    access: 'superAdministrator',
    ok: 201,
    request: (w) => ({
      url: `/api/v2/packages/${w.packageId}/versions`,
      payload: { versionNumber: `2.0.0-${unique('rc')}` },
    }),
  },
  'PATCH /api/v2/packages/:packageId/versions/:versionId': {
    access: 'superAdministrator',
    ok: 200,
    request: (w) => ({
      url: `/api/v2/packages/${w.packageId}/versions/${w.versionId}`,
      payload: { availableOnMarketplace: true },
    }),
  },
  'GET /api/v2/packages/installations': {
    access: 'installationsList',
    ok: 200,
    request: () => ({ url: '/api/v2/packages/installations' }),
  },
  'POST /api/v2/packages/installations': {
    access: 'administrator',
    ok: 201,
    request: async (w) => ({
      url: '/api/v2/packages/installations',
      payload: { packageVersionId: (await freshPackage(w)).versionId },
    }),
  },
  'DELETE /api/v2/packages/installations/:packageId': {
    access: 'administrator',
    ok: 200,
    request: async (w) => {
      const { packageId, versionId } = await freshPackage(w)
      await w.setup(
        { method: 'POST', url: '/api/v2/packages/installations', payload: { packageVersionId: versionId } },
        201,
      )
      return { url: `/api/v2/packages/installations/${packageId}` }
    },
  },

  'GET /api/v2/usage-statistics/active-users': {
    access: 'member',
    ok: 200,
    request: () => ({ url: '/api/v2/usage-statistics/active-users' }),
  },

  ...SIGN_OUT,
}

t.test('authorization matrix: every route × every kind of caller', async (t) => {
  // The reset-password rows call it once per caller: past the default throttle.
  const w = await world(t, { QUIRE_RESET_MAX_PER_ACCOUNT: '1000', QUIRE_RESET_MAX_PER_ADDRESS: '1000' })
  const order = (key: string) => LAST.indexOf(key) // -1 (any other route) first, then the sign-outs in order
  const routes = w.routes
    .filter((route) => !isInfrastructure(route.url))
    .sort((a, b) => order(routeKey(a)) - order(routeKey(b)))
  const keys = new Set(routes.map(routeKey))
  for (const key of keys) t.ok(TABLE[key], `${key} has a row in the authorization table`)
  const stale = Object.keys(TABLE).filter((key) => !keys.has(key))
  if (stale.length > 0) t.comment(`rows without a route (not mounted in this build): ${stale.join(', ')}`)

  let cases = 0
  // Each registered method and path once (`GET /a/` is the same handler as `GET /a`).
  const seen = new Set<string>()
  for (const route of routes) {
    const path = route.url.length > 1 && route.url.endsWith('/') ? route.url.slice(0, -1) : route.url
    if (seen.has(`${route.method} ${path}`)) continue
    seen.add(`${route.method} ${path}`)
    const row = TABLE[routeKey(route)]
    if (!row) continue
    const statuses = expected(row.access, row.ok)
    for (const caller of CALLERS) {
      const request = await row.request(w, caller)
      const res = await w.call(caller, { ...request, method: route.method as Request['method'] })
      cases++
      const label = `${route.method} ${route.url} as ${caller}`
      t.equal(res.statusCode, statuses[caller], label, { body: res.body.slice(0, 300) })
      if (res.statusCode >= 400 && route.method !== 'HEAD') t.match(res.json(), ENVELOPE, `${label}: envelope`)
    }
  }
  t.comment(
    `authorization matrix: ${cases} cases over ${seen.size} routes and ${CALLERS.length} callers (environment ${ENV})`,
  )
})
