import type { RecordStore } from '@quire/records'

/** The users service's collections and the indexes its queries (and the auth lookups) rely on. */
export async function ensureIndexes(store: RecordStore): Promise<void> {
  await store.collection('users').ensureIndex({ name: 'username', fields: { username: 1 }, unique: true })
  await store.collection('users').ensureIndex({ name: 'environmentIds', fields: { environmentIds: 1 } })
  await store.collection('users').ensureIndex({ name: 'activeEnvironmentIds', fields: { activeEnvironmentIds: 1 } })
  await store.collection('users').ensureIndex({ name: 'globalEmails', fields: { 'globalEmails.address': 1 } })
  await store.collection('long_lived_tokens').ensureIndex({ name: 'tokenHash', fields: { tokenHash: 1 }, unique: true })
  await store.collection('long_lived_tokens').ensureIndex({ name: 'userId', fields: { userId: 1 } })
  await store.collection('password_resets').ensureIndex({ name: 'tokenHash', fields: { tokenHash: 1 }, unique: true })
  await store.collection('password_resets').ensureIndex({ name: 'userId', fields: { userId: 1 } })
}
