import t from 'tap'
import type { UserRecord } from '../../src/collections.js'
import { toReferenceData, toUser } from '../../src/lib/user-view.js'

const ENTRY = { name: 'Al', email: 'al@example.com', language: 'de', locale: 'de-CH', active: true, groups: ['ops'] }

const record: UserRecord = {
  _id: 'u1',
  username: 'al',
  profile: { environments: { a: { ...ENTRY, administrator: true }, b: { ...ENTRY, administrator: false } }, note: 'x' },
  globalEmails: [{ address: 'al@example.com', verified: false }],
  environmentIds: ['a', 'b'],
  activeEnvironmentIds: ['a', 'b'],
  isSuperAdministrator: false,
  authentication: { passwordHash: 'scrypt$...' },
  lastLogin: '2030-01-01T00:00:00.000Z',
  _createdOn: '2030-01-01T00:00:00.000Z',
  _createdByUserId: 'u0',
  _lastModifiedOn: '2030-01-02T00:00:00.000Z',
  _lastModifiedByUserId: 'u0',
  extra: 'never shown',
}

t.test('toUser shows the user in one environment, never its secrets nor the other environments', async (t) => {
  const user = toUser(record, 'a')
  t.same(user, {
    _id: 'u1',
    username: 'al',
    profile: { note: 'x', environments: { a: { ...ENTRY, administrator: true } } },
    globalEmails: [{ address: 'al@example.com', verified: false }],
    lastLogin: '2030-01-01T00:00:00.000Z',
    isSuperAdministrator: false,
    _createdOn: '2030-01-01T00:00:00.000Z',
    _createdByUserId: 'u0',
    _lastModifiedOn: '2030-01-02T00:00:00.000Z',
    _lastModifiedByUserId: 'u0',
  })
  t.same(toUser(record, 'c').profile?.environments, {}, 'no entry, no environment')
  t.same(Object.keys(toUser(record, 'a', new Set(['profile', 'globalEmails']))).sort(), [
    '_createdByUserId',
    '_createdOn',
    '_id',
    '_lastModifiedByUserId',
    '_lastModifiedOn',
    'isSuperAdministrator',
    'lastLogin',
    'username',
  ])
})

t.test('toReferenceData reads the environment entry, with empty values when there is none', async (t) => {
  t.same(toReferenceData(record, 'b'), { _id: 'u1', username: 'al', ...ENTRY, administrator: false })
  t.same(toReferenceData(record, 'c'), {
    _id: 'u1',
    username: 'al',
    name: '',
    email: '',
    language: '',
    locale: '',
    groups: [],
    administrator: false,
    active: false,
  })
})
