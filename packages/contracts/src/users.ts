import { Type, type Static } from '@sinclair/typebox'
import { IdSchema, TimestampSchema } from './common.js'

/** A user's entry for one environment: `profile.environments[envId]`. */
export const EnvironmentEntrySchema = Type.Object({
  name: Type.String({ maxLength: 200 }),
  email: Type.String({ maxLength: 320 }),
  language: Type.String({ maxLength: 35 }),
  locale: Type.String({ maxLength: 35 }),
  administrator: Type.Boolean(),
  active: Type.Boolean(),
  groups: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 }),
})
export type EnvironmentEntry = Static<typeof EnvironmentEntrySchema>

/** The part of a user record no endpoint ever returns. */
export interface UserAuthentication {
  passwordHash?: string
  totpSecret?: string
  totpEnabled?: boolean
  recoveryCodeHashes?: string[]
  /** Epoch ms; access tokens issued before it are refused (password reset, 2FA reset). */
  sessionsValidAfter?: number
}

/** A user as stored in the `users` collection. */
export interface UserRecord {
  _id: string
  username: string
  profile: { environments: Record<string, EnvironmentEntry> } & Record<string, unknown>
  globalEmails: { address: string; verified: boolean }[]
  /** Derived from `profile.environments`, indexed: the environments the user belongs to / is active in. */
  environmentIds: string[]
  activeEnvironmentIds: string[]
  isSuperAdministrator?: boolean
  lastLogin?: string
  authentication: UserAuthentication
  _createdOn: string
  _createdByUserId: string
  _lastModifiedOn: string
  _lastModifiedByUserId: string
  [field: string]: unknown
}

/** A long-lived token as stored in `long_lived_tokens`: only the hash of the secret is kept. */
export interface LongLivedTokenRecord {
  _id: string
  userId: string
  tokenHash: string
  name: string
  _createdOn: string
  _createdByUserId: string
  expiresOn: string | null
  [field: string]: unknown
}

export interface EnvironmentRecord {
  _id: string
  name: string
  _createdOn: string
  _createdByUserId: string
  [field: string]: unknown
}

export const LoginBodySchema = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
)
export type LoginBody = Static<typeof LoginBodySchema>

export const LoginResultSchema = Type.Object({
  accessToken: Type.String(),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer(),
  userId: IdSchema,
})

export const EnvironmentSchema = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  _createdOn: TimestampSchema,
  _createdByUserId: Type.String(),
})

export const ActiveUsersSchema = Type.Object({ activeUsers: Type.Integer({ minimum: 0 }) })
