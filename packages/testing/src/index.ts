import { createSign, generateKeyPairSync, randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDENTITY_COLLECTIONS, type IdentityEnvironmentRecord, type IdentityUserRecord } from '@quire/identity'
import type { EnvironmentEntry } from '@quire/contracts'
import { openFileStore, type FileStore } from '@quire/files'
import { currentAccount, newObjectId, openRecordStore, type RecordStore } from '@quire/records'

/** The part of a tap test these helpers use, so they work with any tap version's `t`. */
export interface Teardown {
  teardown(fn: () => unknown): void
}

export interface TestResources {
  dataDir: string
  store: RecordStore
  files: FileStore
  keys: { publicKey: string; privateKey: string; secretsKey: Buffer }
}

/** A fresh data dir with an embedded store, local files, a key pair and a secrets key, all removed when the test ends. */
export async function testResources(t: Teardown): Promise<TestResources> {
  const dataDir = await mkdtemp(join(tmpdir(), 'quire-test-'))
  const store = await openRecordStore({ dataDir })
  const files = await openFileStore({ dataDir })
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  const keys = { ...pair, secretsKey: randomBytes(32) }
  t.teardown(async () => {
    await files.close()
    await store.close()
    await rm(dataDir, { recursive: true, force: true })
  })
  return { dataDir, store, files, keys }
}

export async function createEnvironment(store: RecordStore, id: string): Promise<IdentityEnvironmentRecord> {
  const environment = { _id: id, name: id, _createdOn: new Date().toISOString(), _createdByUserId: 'test' }
  await IDENTITY_COLLECTIONS.environments.in(store).insertOne(environment)
  return environment
}

export interface UserSeed {
  username?: string
  superAdministrator?: boolean
  /** Environment id → entry; missing entry fields get member defaults (active, not administrator). */
  environments?: Record<string, Partial<EnvironmentEntry>>
}

/** A user as `createUser` writes it: the fields every service's auth reads, and the account's name. */
export type SeededUser = IdentityUserRecord & { username: string }

/** Writes a user record directly, as the users service stores it (no password: tokens come from `accessToken`). */
export async function createUser(store: RecordStore, seed: UserSeed = {}): Promise<SeededUser> {
  const now = new Date().toISOString()
  const _id = newObjectId()
  const environments: Record<string, EnvironmentEntry> = {}
  for (const [id, entry] of Object.entries(seed.environments ?? {})) {
    environments[id] = {
      name: '',
      email: '',
      language: 'en',
      locale: 'en',
      administrator: false,
      active: true,
      groups: [],
      ...entry,
    }
  }
  const user: SeededUser = {
    _id,
    username: seed.username ?? `user-${randomBytes(4).toString('hex')}`,
    profile: { environments },
    globalEmails: [],
    environmentIds: Object.keys(environments),
    activeEnvironmentIds: Object.keys(environments).filter((id) => environments[id]?.active),
    isSuperAdministrator: seed.superAdministrator === true,
    authentication: {},
    _createdOn: now,
    _createdByUserId: _id,
    _lastModifiedOn: now,
    _lastModifiedByUserId: _id,
  }
  await IDENTITY_COLLECTIONS.users.in(store).insertOne(user)
  return user
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

/**
 * An RS256 access token as the users service issues it; `expiresIn` may be negative for an expired one, and
 * `sessionId` is its `sid` (a renewable sign-in's).
 */
export function accessToken(
  privateKey: string,
  userId: string,
  options: { expiresIn?: number; issuedAt?: number; sessionId?: string } = {},
): string {
  const t = options.issuedAt ?? Date.now()
  const iat = Math.floor(t / 1000)
  const claims = { sub: userId, t, iat, exp: iat + (options.expiresIn ?? 3600), sid: options.sessionId }
  const body = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url(claims)}`
  return `${body}.${createSign('RSA-SHA256').update(body).sign(privateKey).toString('base64url')}`
}

/** Headers of an authenticated `/api/v2` call. */
export const headers = (token: string, environmentId?: string): Record<string, string> =>
  environmentId
    ? { authorization: `Bearer ${token}`, 'environment-id': environmentId }
    : { authorization: `Bearer ${token}` }

/**
 * A store wrapper (a service's `store`) whose collections push, at each call, the work account it runs on (the
 * environment charged; undefined for none) to `seen`: what the services' work-account plugins decide, observed.
 */
export function notingWorkAccounts(seen: Array<string | undefined>): (store: RecordStore) => RecordStore {
  const noting = <C extends object>(collection: C): C =>
    new Proxy(collection, {
      get(target, method, receiver) {
        const value = Reflect.get(target, method, receiver) as unknown
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          seen.push(currentAccount()?.id)
          return (value as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
  return (store) =>
    new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'collection') return (name: string) => noting(target.collection(name))
        return Reflect.get(target, property, receiver) as unknown
      },
    })
}

export { installPacked } from './pack.js'
