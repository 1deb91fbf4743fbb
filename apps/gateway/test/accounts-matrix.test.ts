import t from 'tap'
import { createUser } from '@quire/testing'
import { CALLERS, ENV, ENVELOPE, OTHER_ENV, type Caller, type Request, world } from './hardening/world.js'

/**
 * The account routes of issue 19 × every kind of caller, plus one the main matrix has not: a live long-lived
 * token, which may read but never mint credentials or change how an account signs in.
 */
type Column = Caller | 'liveLongLivedToken'
const COLUMNS: readonly Column[] = [...CALLERS, 'liveLongLivedToken']
const UNAUTHENTICATED: readonly Column[] = ['noToken', 'garbageToken', 'expiredToken', 'revokedLongLivedToken']

interface Row {
  request: Omit<Request, 'method'> & { method?: Request['method'] }
  /** The status of each column not given: 401 for the unauthenticated, else `otherwise`. */
  statuses: Partial<Record<Column, number>>
  otherwise: number
}

/** Everyone signed in reaches the body check (400), except a long-lived token (403). */
const ownAccount = (url: string, payload?: Record<string, string>): Row => ({
  request: { method: 'POST', url, ...(payload ? { payload } : {}) },
  statuses: { liveLongLivedToken: 403 },
  otherwise: 400,
})

t.test('account routes × every kind of caller', async (t) => {
  const w = await world(t)
  const live = await w.call('member', {
    method: 'POST',
    url: `/api/v2/users/${w.userIds.member}/long-lived-tokens`,
    payload: { name: 'live' },
  })
  t.equal(live.statusCode, 201, 'a member mints its own token with an access token')
  const liveToken: string = live.json().data[0].token
  // In both environments: only a super-administrator, or an administrator of both, may reset its 2FA.
  const shared = await createUser(w.resources.store, { environments: { [ENV]: {}, [OTHER_ENV]: {} } })

  const call = (column: Column, request: Request) =>
    column === 'liveLongLivedToken'
      ? w.server.inject({
          ...request,
          headers: { 'environment-id': ENV, authorization: `Bearer ${liveToken}`, ...request.headers },
        })
      : w.call(column, request)

  const rows: Record<string, Row> = {}
  for (const prefix of ['/auth', '/api/v2/auth']) {
    Object.assign(rows, {
      [`${prefix}/password {}`]: ownAccount(`${prefix}/password`, {}),
      [`${prefix}/2fa/disable {}`]: ownAccount(`${prefix}/2fa/disable`, {}),
      [`${prefix}/2fa/recovery-codes {}`]: ownAccount(`${prefix}/2fa/recovery-codes`, {}),
      [`${prefix}/2fa/enable without the password`]: ownAccount(`${prefix}/2fa/enable`, { code: '000000' }),
      [`${prefix}/2fa/setup`]: { ...ownAccount(`${prefix}/2fa/setup`), otherwise: 200 },
      [`${prefix}/reset-2FA of a user of two environments`]: {
        request: { method: 'POST', url: `${prefix}/reset-2FA`, payload: { userId: shared._id } },
        statuses: { superAdministrator: 200, administrator: 403 },
        otherwise: 403,
      },
    })
  }
  rows['mint a long-lived token for the member'] = {
    request: { method: 'POST', url: `/api/v2/users/${w.userIds.member}/long-lived-tokens`, payload: {} },
    statuses: { member: 201, administrator: 201, superAdministrator: 201 },
    otherwise: 403,
  }
  rows['list the member’s long-lived tokens'] = {
    request: { method: 'GET', url: `/api/v2/users/${w.userIds.member}/long-lived-tokens` },
    statuses: { member: 200, administrator: 200, superAdministrator: 200, liveLongLivedToken: 200 },
    otherwise: 403,
  }
  // Last: it ends the callers' sessions, so the same call again finds every access token refused.
  rows['/api/v2/auth/sign-out-everywhere'] = { ...ownAccount('/api/v2/auth/sign-out-everywhere'), otherwise: 200 }
  rows['/auth/sign-out-everywhere, once signed out'] = { ...ownAccount('/auth/sign-out-everywhere'), otherwise: 401 }

  let cases = 0
  for (const [label, row] of Object.entries(rows)) {
    for (const column of COLUMNS) {
      const expected = row.statuses[column] ?? (UNAUTHENTICATED.includes(column) ? 401 : row.otherwise)
      const res = await call(column, { method: 'GET', ...row.request })
      cases++
      t.equal(res.statusCode, expected, `${label} as ${column}`, { body: res.body.slice(0, 300) })
      if (res.statusCode >= 400) t.match(res.json(), ENVELOPE, `${label} as ${column}: envelope`)
    }
  }
  t.comment(`accounts matrix: ${cases} cases`)
})
