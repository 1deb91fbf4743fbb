import t from 'tap'
import type { Scope } from '@quire/auth'
import type { EnvironmentEntry } from '@quire/contracts'
import type { UserRecord } from '../../src/collections.js'
import { mintedEnvironments, userToActFor } from '../../src/lib/acting-for.js'

const ENTRY: EnvironmentEntry = {
  name: '',
  email: '',
  language: 'en',
  locale: 'en',
  administrator: false,
  active: true,
  groups: [],
}

function record(_id: string, entries: Record<string, Partial<EnvironmentEntry>>, superAdministrator = false) {
  const environments = Object.fromEntries(Object.entries(entries).map(([id, entry]) => [id, { ...ENTRY, ...entry }]))
  const user: UserRecord = {
    _id,
    username: _id,
    profile: { environments },
    globalEmails: [],
    environmentIds: Object.keys(environments),
    activeEnvironmentIds: Object.keys(environments).filter((id) => environments[id]?.active),
    isSuperAdministrator: superAdministrator,
    authentication: {},
    _createdOn: '2030-01-01T00:00:00.000Z',
    _createdByUserId: _id,
    _lastModifiedOn: '2030-01-01T00:00:00.000Z',
    _lastModifiedByUserId: _id,
  }
  return user
}

const scope = (userId: string, role: 'member' | 'administrator' | 'super'): Scope => ({
  userId,
  via: 'access-token',
  actionDepth: 0,
  superAdministrator: role === 'super',
  environmentId: 'a',
  administrator: role !== 'member',
  groups: [],
})

const errorCode = (fn: () => unknown) => {
  try {
    fn()
    return null
  } catch (err) {
    return (err as { code?: string }).code
  }
}

t.test('everyone acts for itself; an unknown self is not found', async (t) => {
  const self = record('me', { a: {} })
  t.equal(userToActFor(scope('me', 'member'), 'me', { target: self, actor: self }), self)
  t.equal(
    errorCode(() => userToActFor(scope('me', 'member'), 'me', { target: null, actor: null })),
    'user_not_found',
  )
})

t.test('members act for nobody else, before the target is even looked at', async (t) => {
  t.equal(
    errorCode(() => userToActFor(scope('me', 'member'), 'other', { target: null, actor: null })),
    'forbidden',
  )
})

t.test('administrators act for members whose every environment they administer', async (t) => {
  const admin = record('admin', {
    a: { administrator: true },
    b: { administrator: true },
    c: { administrator: true, active: false },
  })
  const asAdmin = scope('admin', 'administrator')
  const inA = record('x', { a: {} })
  const inAB = record('y', { a: {}, b: { active: false } })
  const inAC = record('z', { a: {}, c: {} })
  const inAD = record('w', { a: {}, d: {} })
  t.equal(userToActFor(asAdmin, 'x', { target: inA, actor: admin }), inA)
  t.equal(userToActFor(asAdmin, 'y', { target: inAB, actor: admin }), inAB, 'inactive entries of the target count too')
  t.equal(
    errorCode(() => userToActFor(asAdmin, 'z', { target: inAC, actor: admin })),
    'forbidden',
    'an inactive administrator entry does not count',
  )
  t.equal(
    errorCode(() => userToActFor(asAdmin, 'w', { target: inAD, actor: admin })),
    'forbidden',
  )
  t.equal(
    errorCode(() => userToActFor(asAdmin, 'x', { target: null, actor: admin })),
    'user_not_found',
  )
  t.equal(
    errorCode(() => userToActFor(asAdmin, 's', { target: record('s', { a: {} }, true), actor: admin })),
    'forbidden',
    'never for a super-administrator',
  )
})

t.test('a super-administrator acts for anyone in the environment', async (t) => {
  const target = record('s', { a: {}, elsewhere: {} }, true)
  t.equal(userToActFor(scope('root', 'super'), 's', { target, actor: null }), target)
  t.equal(
    errorCode(() => userToActFor(scope('root', 'super'), 's', { target: null, actor: null })),
    'user_not_found',
  )
})

t.test('bound credentials act for those whose every environment they open and the actor administers', async (t) => {
  const admin = record('admin', { a: { administrator: true }, b: { administrator: true } })
  const bound: Scope = { ...scope('admin', 'administrator'), environmentIds: ['a'] }
  const inA = record('x', { a: {} })
  const inAB = record('y', { a: {}, b: {} })
  t.equal(userToActFor(bound, 'x', { target: inA, actor: admin }), inA)
  t.equal(
    errorCode(() => userToActFor(bound, 'y', { target: inAB, actor: admin })),
    'forbidden',
    'b is administered, but not opened by the credentials',
  )
})

t.test('a minted token is bound to its user’s environments, unless its own or a super-administrator’s', async (t) => {
  const user = record('u', { a: {}, b: { active: false } })
  t.same(mintedEnvironments(scope('admin', 'administrator'), user), ['a', 'b'])
  t.equal(mintedEnvironments(scope('u', 'member'), user), undefined)
  t.equal(mintedEnvironments(scope('root', 'super'), user), undefined)
})
