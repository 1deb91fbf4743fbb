import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { newObjectId, openRecordStore, StoreFullError, type RecordStore } from '@quire/records'
import { hashToken, IDENTITY_COLLECTIONS, recordsIdentity, type IdentityUserRecord } from '../src/index.js'

type Entry = { administrator?: boolean; active?: boolean }

/** The fields this package reads, written as the users service writes them (@quire/testing depends on this package). */
async function createUser(
  store: RecordStore,
  seed: { superAdministrator?: boolean; environments: Record<string, Entry> },
): Promise<IdentityUserRecord> {
  const environments = Object.fromEntries(
    Object.entries(seed.environments).map(([id, entry]) => [
      id,
      { administrator: entry.administrator ?? false, active: entry.active ?? true, groups: [] },
    ]),
  )
  const user = {
    _id: newObjectId(),
    isSuperAdministrator: seed.superAdministrator ?? false,
    profile: { environments },
    activeEnvironmentIds: Object.keys(environments).filter((id) => environments[id]?.active),
    authentication: {},
  }
  return IDENTITY_COLLECTIONS.users.in(store).insertOne(user)
}

t.test('what other services read of the users service: access, tokens, environments, active users', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'quire-identity-'))
  const store = await openRecordStore({ dataDir })
  t.teardown(async () => {
    await store.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  const identity = recordsIdentity(store)
  await IDENTITY_COLLECTIONS.environments.in(store).insertOne({ _id: 'acme' })
  const admin = await createUser(store, { superAdministrator: true, environments: { acme: { administrator: true } } })
  await createUser(store, { environments: { acme: {}, globex: {} } })
  await createUser(store, { environments: { acme: { active: false }, globex: {} } })

  t.match(await identity.user(admin._id), {
    userId: admin._id,
    superAdministrator: true,
    environments: { acme: { administrator: true, active: true, groups: [] } },
    sessionsValidAfter: 0,
  })
  t.equal(await identity.user('000000000000000000000000'), null)
  t.equal(await identity.environmentState('acme'), 'active')
  t.equal(await identity.environmentState('globex'), null, 'a user entry does not make an environment')
  const environments = IDENTITY_COLLECTIONS.environments.in(store)
  await environments.insertOne({ _id: 'closed', active: false })
  await environments.insertOne({ _id: 'gone', active: true, deletedOn: new Date().toISOString() })
  t.equal(await identity.environmentState('closed'), 'inactive')
  t.equal(await identity.environmentState('gone'), null, 'a deleted environment does not exist')
  t.equal(await identity.activeUsers('acme'), 2)
  t.equal(await identity.activeUsers('globex'), 2)
  t.equal(await identity.activeUsers('nowhere'), 0)

  // A changed record is read again, not served from the decoded copy.
  await IDENTITY_COLLECTIONS.users.in(store).updateOne({ _id: admin._id }, { $set: { isSuperAdministrator: false } })
  t.equal((await identity.user(admin._id))?.superAdministrator, false)
  await environments.updateOne({ _id: 'acme' }, { $set: { active: false } })
  t.equal(await identity.environmentState('acme'), 'inactive', 'a deactivation holds at the next request')
  await environments.updateOne({ _id: 'acme' }, { $set: { deletedOn: new Date().toISOString() } })
  t.equal(await identity.environmentState('acme'), null)

  const tokens = IDENTITY_COLLECTIONS.longLivedTokens.in(store)
  await tokens.insertOne({ _id: 'live', userId: admin._id, tokenHash: hashToken('secret-live'), expiresOn: null })
  const past = new Date(Date.now() - 1000).toISOString()
  await tokens.insertOne({ _id: 'expired', userId: admin._id, tokenHash: hashToken('secret-old'), expiresOn: past })
  t.same(await identity.longLivedToken('secret-live'), { tokenId: 'live', userId: admin._id })
  t.equal(await identity.longLivedToken('secret-old'), null, 'expired')
  await tokens.insertOne({
    _id: 'bound',
    userId: admin._id,
    tokenHash: hashToken('secret-bound'),
    expiresOn: null,
    environmentIds: ['acme'],
  })
  t.same(
    await identity.longLivedToken('secret-bound'),
    { tokenId: 'bound', userId: admin._id, environmentIds: ['acme'] },
    'minted by another user: the environments it was minted for',
  )
  t.equal(await identity.longLivedToken('unknown'), null)

  const used = await tokens.findOne({ _id: 'live' })
  t.match(used?.lastUsedOn, /^\d{4}-\d\d-\d\dT/, 'a use is recorded')
  await identity.longLivedToken('secret-live')
  t.equal((await tokens.findOne({ _id: 'live' }))?.lastUsedOn, used?.lastUsedOn, 'at most once a minute')
  const longAgo = new Date(Date.now() - 120_000).toISOString()
  await tokens.updateOne({ _id: 'live' }, { $set: { lastUsedOn: longAgo } })
  await identity.longLivedToken('secret-live')
  t.not((await tokens.findOne({ _id: 'live' }))?.lastUsedOn, longAgo, 'a use after a minute is recorded again')
})

t.test('a session is live until it is deleted or expires; its use is recorded once a minute', async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), 'quire-identity-'))
  const store = await openRecordStore({ dataDir })
  t.teardown(async () => {
    await store.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  const identity = recordsIdentity(store)
  const sessions = IDENTITY_COLLECTIONS.sessions.in(store)
  await sessions.insertOne({ _id: 'live', userId: 'u1', expiresAt: Date.now() + 60_000 })
  await sessions.insertOne({ _id: 'lapsed', userId: 'u1', expiresAt: Date.now() - 1 })

  t.same(await identity.session('live'), { userId: 'u1' })
  t.equal(await identity.session('lapsed'), null, 'past its expiry')
  t.equal(await identity.session('unknown'), null)

  const used = (await sessions.findOne({ _id: 'live' }))?.lastUsedOn
  t.match(used, /^\d{4}-\d\d-\d\dT/, 'a use is recorded')
  await identity.session('live')
  t.equal((await sessions.findOne({ _id: 'live' }))?.lastUsedOn, used, 'at most once a minute')

  await sessions.updateOne({ _id: 'live' }, { $set: { lastUsedOn: new Date(Date.now() - 120_000).toISOString() } })
  // The store as on a full disk: reads go on, updates are refused.
  const full: RecordStore = {
    ...store,
    collection: (name) =>
      new Proxy(store.collection(name), {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target)
          if (property === 'updateOne') return () => Promise.reject(new StoreFullError('the disk is full'))
          return typeof value === 'function' ? value.bind(target) : value
        },
      }),
  }
  t.same(await recordsIdentity(full).session('live'), { userId: 'u1' }, 'a full disk does not refuse the session')

  await sessions.deleteOne({ _id: 'live' })
  t.equal(await identity.session('live'), null, 'ended')
})
