import type { EnvironmentEntry } from '@quire/contracts'
import {
  IDENTITY_COLLECTIONS,
  type IdentityEnvironmentRecord,
  type IdentitySessionRecord,
  type IdentityTokenRecord,
  type IdentityUserRecord,
} from '@quire/identity'
import { defineCollection, DuplicateKeyError, ensureIndexes, type IndexSpec, type RecordStore } from '@quire/records'
import { loginKey } from './lib/identifiers.js'

type IdentityAuthentication = IdentityUserRecord['authentication']

/** The part of a user record no endpoint ever returns. */
export interface UserAuthentication extends IdentityAuthentication {
  passwordHash?: string
  totpSecret?: string
  totpEnabled?: boolean
  recoveryCodeHashes?: string[]
  /** The last TOTP time step accepted at login, so a code cannot be replayed within its window. */
  totpLastStep?: number
}

/** A user as stored in `users`: what every service's auth reads (see @quire/identity), and the account itself. */
export interface UserRecord extends IdentityUserRecord {
  username: string
  profile: { environments: Record<string, EnvironmentEntry> } & Record<string, unknown>
  globalEmails: { address: string; verified: boolean }[]
  /**
   * The keys the account is signed in by (lib/identifiers.ts `loginKey`): its username's and its global
   * addresses'; unique across accounts. Missing on accounts written before keys existed until
   * `backfillLoginKeys` gives them their username's.
   */
  loginKeys?: string[]
  /** Derived from `profile.environments`, indexed: the environments the user belongs to (active or not). */
  environmentIds: string[]
  lastLogin?: string
  authentication: UserAuthentication
  _createdOn: string
  _createdByUserId: string
  _lastModifiedOn: string
  _lastModifiedByUserId: string
}

/** A long-lived token as stored in `long_lived_tokens`: only the hash of the secret is kept. */
export interface LongLivedTokenRecord extends IdentityTokenRecord {
  name: string
  _createdOn: string
  _createdByUserId: string
}

export interface EnvironmentRecord extends IdentityEnvironmentRecord {
  name: string
  _createdOn: string
  _createdByUserId: string
  _lastModifiedOn?: string
  _lastModifiedByUserId?: string
}

/**
 * Attempts reserved by one key in its current window (login: `login-account:<id or name>`,
 * `login-address:<ip>`; password reset: `reset-account:...`, `reset-address:...`). Purged once expired.
 */
export interface ThrottleRecord {
  _id: string
  count: number
  /** Epoch ms of the service clock. */
  windowStart: number
  /** Epoch ms: the window's end, when the purge removes the record. */
  expiresAt: number
  [field: string]: unknown
}

/**
 * A password reset: only the hash of the token. `userId` is null for a request that matched no account: it is
 * written all the same, so known and unknown accounts cost the same work, and no token can ever confirm it.
 */
export interface PasswordResetRecord {
  _id: string
  userId: string | null
  tokenHash: string
  /** Epoch ms of the service clock; the purge removes the record then. */
  expiresAt: number
  _createdOn: string
  [field: string]: unknown
}

/**
 * A mail in the outbox. `text` holds the full mail (with its reset token) only while `queued`: once handed to
 * SMTP it is replaced by `redactedText`. `discarded`: a reset that matched no account (nothing is sent).
 */
export interface OutboxRecord {
  _id: string
  from: string
  to: string
  subject: string
  text: string
  /** The text without its secret: what stays once the mail is handed over (or given up). */
  redactedText?: string
  status: 'queued' | 'sent' | 'failed' | 'discarded'
  /** Delivery attempts made, and when the next may be made (epoch ms). */
  attempts: number
  nextAttemptAt: number
  /** Epoch ms: when the purge removes the record. */
  expiresAt: number
  _createdOn: string
  [field: string]: unknown
}

/**
 * A renewable sign-in (domain/sessions.ts): only the hash of its current refresh token. Every service's auth reads
 * it by `_id` (the `sid` of its access tokens) through @quire/identity; deleting it signs out.
 */
export interface SessionRecord extends IdentitySessionRecord {
  tokenHash: string
  /** Real epoch ms, compared with the user's `sessionsValidAfter` (which is written on the real clock). */
  openedAt: number
  /** The client's `User-Agent`, cut to 256 characters; absent on sessions opened before it was kept. */
  userAgent?: string
  _createdOn?: string
}

/** One line of the audit log: who did what to whom, when. */
export interface AuditRecord {
  _id: string
  action: 'reset-2FA'
  actorUserId: string
  targetUserId: string
  environmentId: string | null
  _createdOn: string
  [field: string]: unknown
}

/** The purge (plugins/housekeeping.ts) finds expired records through this index, never by a scan. */
const EXPIRES_AT: IndexSpec = { name: 'expiresAt', fields: { expiresAt: 1 } }

/**
 * Every collection the users service owns. `users`, `long_lived_tokens` and `environments` are read by every
 * service's auth, so their names and the indexes auth relies on come from @quire/identity: the two cannot drift.
 */
export const COLLECTIONS = {
  users: defineCollection<UserRecord>(IDENTITY_COLLECTIONS.users.name, [
    ...IDENTITY_COLLECTIONS.users.indexes,
    { name: 'username', fields: { username: 1 }, unique: true },
    { name: 'loginKeys', fields: { loginKeys: 1 }, unique: true, partial: { loginKeys: { $exists: true } } },
    { name: 'environmentIds', fields: { environmentIds: 1 } },
    { name: 'globalEmails', fields: { 'globalEmails.address': 1 } },
  ]),
  longLivedTokens: defineCollection<LongLivedTokenRecord>(IDENTITY_COLLECTIONS.longLivedTokens.name, [
    ...IDENTITY_COLLECTIONS.longLivedTokens.indexes,
    { name: 'userId', fields: { userId: 1 } },
  ]),
  environments: defineCollection<EnvironmentRecord>(
    IDENTITY_COLLECTIONS.environments.name,
    IDENTITY_COLLECTIONS.environments.indexes,
  ),
  throttles: defineCollection<ThrottleRecord>('throttles', [EXPIRES_AT]),
  passwordResets: defineCollection<PasswordResetRecord>('password_resets', [
    { name: 'tokenHash', fields: { tokenHash: 1 }, unique: true },
    { name: 'userId', fields: { userId: 1 } },
    EXPIRES_AT,
  ]),
  mailOutbox: defineCollection<OutboxRecord>('mail_outbox', [
    EXPIRES_AT,
    { name: 'delivery', fields: { status: 1, nextAttemptAt: 1 } },
  ]),
  auditLog: defineCollection<AuditRecord>('audit_log'),
  sessions: defineCollection<SessionRecord>(IDENTITY_COLLECTIONS.sessions.name, [
    ...IDENTITY_COLLECTIONS.sessions.indexes,
    { name: 'tokenHash', fields: { tokenHash: 1 }, unique: true },
    { name: 'userId', fields: { userId: 1 } },
    EXPIRES_AT,
  ]),
} as const

/**
 * Gives each account written before login keys existed its username's key, oldest account first. When two old
 * usernames share a key (`Admin` and `admin`), the older account gets it and the other is left without: it still
 * signs in by its exact username, nobody can take a name of that key any more, and its id is returned to be
 * reported. Old global addresses are not keyed: an address two old accounts share signs in neither and mails
 * neither (see accounts and password-reset), and new accounts are checked against them.
 */
async function backfillLoginKeys(store: RecordStore): Promise<string[]> {
  const users = COLLECTIONS.users.in(store)
  const unkeyed = await users.find({ loginKeys: { $exists: false } }, { sort: { _id: 1 }, projection: { username: 1 } })
  const clashing: string[] = []
  for (const { _id, username } of unkeyed) {
    try {
      await users.updateOne({ _id, loginKeys: { $exists: false } }, { $set: { loginKeys: [loginKey(username)] } })
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err
      clashing.push(_id)
    }
  }
  return clashing
}

/**
 * Creates the indexes that are missing and keys old accounts (idempotent); app.ts calls it once, before anything
 * reads. Resolves to the accounts whose username clashes with an older one's (see `backfillLoginKeys`).
 */
export async function ensureUsersIndexes(store: RecordStore): Promise<string[]> {
  await ensureIndexes(store, Object.values(COLLECTIONS))
  return backfillLoginKeys(store)
}
