import { Type, type Static } from '@sinclair/typebox'
import { EnvironmentIdSchema, IdSchema, LimitSchema, PRINTABLE_PATTERN, TimestampSchema } from './common.js'

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
  /** A deactivated environment is open to super-administrators only. */
  active: Type.Boolean(),
  _createdOn: TimestampSchema,
  _createdByUserId: Type.String(),
})
export type Environment = Static<typeof EnvironmentSchema>

const EnvironmentNameSchema = Type.String({ minLength: 1, maxLength: 200, pattern: PRINTABLE_PATTERN })

export const CreateEnvironmentBodySchema = Type.Object(
  { _id: EnvironmentIdSchema, name: EnvironmentNameSchema },
  { additionalProperties: false },
)
export type CreateEnvironmentBody = Static<typeof CreateEnvironmentBodySchema>

export const EnvironmentParamsSchema = Type.Object({ environmentId: EnvironmentIdSchema })

/** Rename (`name`), deactivate or reactivate (`active`). */
export const UpdateEnvironmentBodySchema = Type.Object(
  { name: Type.Optional(EnvironmentNameSchema), active: Type.Optional(Type.Boolean()) },
  { additionalProperties: false, minProperties: 1 },
)
export type UpdateEnvironmentBody = Static<typeof UpdateEnvironmentBodySchema>

export const DeleteEnvironmentQuerySchema = Type.Object(
  { force: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
)

export const EnvironmentDeletedSchema = Type.Object({
  _id: Type.String(),
  deleted: Type.Literal(true),
  /** Users' entries of the environment removed with it (`force=true`). */
  removedUserEntries: Type.Integer({ minimum: 0 }),
})

export const ActiveUsersSchema = Type.Object({ activeUsers: Type.Integer({ minimum: 0 }) })

/**
 * A user as responses show it: never `authentication` nor the derived environment lists, and
 * `profile.environments` holding only the current environment's entry. Fields are optional because `exclude`
 * may leave any of them out (except `_id`).
 */
export const UserSchema = Type.Object({
  _id: IdSchema,
  username: Type.Optional(Type.String()),
  profile: Type.Optional(
    Type.Object({ environments: Type.Record(Type.String(), EnvironmentEntrySchema) }, { additionalProperties: true }),
  ),
  globalEmails: Type.Optional(Type.Array(Type.Object({ address: Type.String(), verified: Type.Boolean() }))),
  lastLogin: Type.Optional(TimestampSchema),
  isSuperAdministrator: Type.Optional(Type.Boolean()),
  _createdOn: Type.Optional(TimestampSchema),
  _createdByUserId: Type.Optional(Type.String()),
  _lastModifiedOn: Type.Optional(TimestampSchema),
  _lastModifiedByUserId: Type.Optional(Type.String()),
})
export type User = Static<typeof UserSchema>

/** `GET /api/v2/users`: `exclude` and `query` are URL-encoded JSON (an array of field names, a filter). */
export const UserListQuerySchema = Type.Object({
  limit: LimitSchema,
  after: Type.Optional(IdSchema),
  exclude: Type.Optional(Type.String({ maxLength: 4096 })),
  query: Type.Optional(Type.String({ maxLength: 16_384 })),
})
export type UserListQuery = Static<typeof UserListQuerySchema>

export const UserParamsSchema = Type.Object({ userId: IdSchema })
export type UserParams = Static<typeof UserParamsSchema>

/** The per-environment fields an administrator sets; they land in the caller's environment's entry. */
const EntryFields = {
  name: Type.Optional(Type.String({ maxLength: 200, pattern: PRINTABLE_PATTERN })),
  email: Type.Optional(Type.String({ maxLength: 320, format: 'email' })),
  language: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
  locale: Type.Optional(Type.String({ minLength: 1, maxLength: 35 })),
  administrator: Type.Optional(Type.Boolean()),
  active: Type.Optional(Type.Boolean()),
  groups: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200, uniqueItems: true }),
  ),
}

/** Passwords: long enough to mean something, short enough that hashing them cannot be abused. */
export const PasswordSchema = Type.String({ minLength: 8, maxLength: 1024 })

/**
 * A username: no spaces or control characters. It may be an e-mail address (platforms often use one, and accounts
 * migrated from them keep theirs); login and password reset look an account up by username or e-mail either way.
 * The users service checks the rest (docs/API.md): NFC, no invisible or bidirectional characters, letters of one
 * script, unique without regard to case.
 */
export const UsernameSchema = Type.String({
  minLength: 1,
  maxLength: 320,
  pattern: '^[^\\s\\u0000-\\u001f\\u007f-\\u009f]+$',
})

export const CreateUserBodySchema = Type.Object(
  {
    username: UsernameSchema,
    password: Type.Optional(PasswordSchema),
    ...EntryFields,
  },
  { additionalProperties: false },
)
export type CreateUserBody = Static<typeof CreateUserBodySchema>

export const PatchUserBodySchema = Type.Object(EntryFields, { additionalProperties: false })
export type PatchUserBody = Static<typeof PatchUserBodySchema>

/** What other records show when they refer to a user in one environment. */
export const UserReferenceDataSchema = Type.Object({
  _id: IdSchema,
  username: Type.String(),
  name: Type.String(),
  email: Type.String(),
  language: Type.String(),
  locale: Type.String(),
  groups: Type.Array(Type.String()),
  administrator: Type.Boolean(),
  active: Type.Boolean(),
})
export type UserReferenceData = Static<typeof UserReferenceDataSchema>

export const LongLivedTokenParamsSchema = Type.Object({ userId: IdSchema, tokenId: IdSchema })
export type LongLivedTokenParams = Static<typeof LongLivedTokenParamsSchema>

export const CreateLongLivedTokenBodySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200, pattern: PRINTABLE_PATTERN })),
    expiresOn: Type.Optional(TimestampSchema),
  },
  { additionalProperties: false },
)
export type CreateLongLivedTokenBody = Static<typeof CreateLongLivedTokenBodySchema>

/** A long-lived token as listed: never the secret, never its hash. */
export const LongLivedTokenSchema = Type.Object({
  _id: IdSchema,
  name: Type.String(),
  _createdOn: TimestampSchema,
  _createdByUserId: Type.String(),
  expiresOn: Type.Union([TimestampSchema, Type.Null()]),
  /** When the token was last used, to the minute (null: never). */
  lastUsedOn: Type.Union([TimestampSchema, Type.Null()]),
})
export type LongLivedToken = Static<typeof LongLivedTokenSchema>

/** `GET .../long-lived-tokens`: a page in creation order; `after` is the last `_id` of the previous page. */
export const LongLivedTokensQuerySchema = Type.Object(
  { limit: LimitSchema, after: Type.Optional(IdSchema) },
  { additionalProperties: false },
)
export type LongLivedTokensQuery = Static<typeof LongLivedTokensQuerySchema>

/** The one answer that shows the secret. */
export const CreatedLongLivedTokenSchema = Type.Composite([LongLivedTokenSchema, Type.Object({ token: Type.String() })])
export type CreatedLongLivedToken = Static<typeof CreatedLongLivedTokenSchema>

export const RevokedLongLivedTokenSchema = Type.Object({ _id: IdSchema, revoked: Type.Literal(true) })

export const ResetPasswordBodySchema = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
  },
  // `{}` is accepted and answered like an unknown account: the answer never depends on the input.
  { additionalProperties: false },
)
export type ResetPasswordBody = Static<typeof ResetPasswordBodySchema>

export const ConfirmResetPasswordBodySchema = Type.Object(
  { token: Type.String({ minLength: 16, maxLength: 256 }), password: PasswordSchema },
  { additionalProperties: false },
)
export type ConfirmResetPasswordBody = Static<typeof ConfirmResetPasswordBodySchema>

/** The same answer whether or not an account matched: no account probing. */
export const ResetPasswordResultSchema = Type.Object({ requested: Type.Literal(true) })
/** How many long-lived tokens of the user a reset revoked (a reset ends every credential of the account). */
const RevokedCount = { revokedLongLivedTokens: Type.Integer({ minimum: 0 }) }
export const ConfirmResetPasswordResultSchema = Type.Object({ userId: IdSchema, ...RevokedCount })

export const TwoFactorSetupSchema = Type.Object({ secret: Type.String(), uri: Type.String() })
/** The signed-in user's current password: asked again before any change to how the account is secured. */
const CurrentPassword = { password: Type.String({ minLength: 1, maxLength: 1024 }) }
export const CurrentPasswordBodySchema = Type.Object(CurrentPassword, { additionalProperties: false })
export type CurrentPasswordBody = Static<typeof CurrentPasswordBodySchema>

export const TwoFactorEnableBodySchema = Type.Object(
  { code: Type.String({ pattern: '^[0-9]{6}$' }), ...CurrentPassword },
  { additionalProperties: false },
)
export type TwoFactorEnableBody = Static<typeof TwoFactorEnableBodySchema>
export const TwoFactorEnabledSchema = Type.Object({ recoveryCodes: Type.Array(Type.String()) })

export const ResetTwoFactorBodySchema = Type.Object({ userId: IdSchema }, { additionalProperties: false })
export type ResetTwoFactorBody = Static<typeof ResetTwoFactorBodySchema>
export const ResetTwoFactorResultSchema = Type.Object({
  userId: IdSchema,
  twoFactorEnabled: Type.Literal(false),
  ...RevokedCount,
})
export const TwoFactorDisabledSchema = Type.Object({ twoFactorEnabled: Type.Literal(false) })

/** `POST /auth/password`: the signed-in user changes its password. */
export const ChangePasswordBodySchema = Type.Object(
  { ...CurrentPassword, newPassword: PasswordSchema },
  { additionalProperties: false },
)
export type ChangePasswordBody = Static<typeof ChangePasswordBodySchema>
/** Every other session ends: the answer carries a fresh access token for the caller's own. */
export const PasswordChangedSchema = Type.Object({
  ...LoginResultSchema.properties,
  ...RevokedCount,
})

/** `POST /auth/sign-out-everywhere`: every access token of the user issued until now is refused. */
export const SignedOutSchema = Type.Object({ signedOut: Type.Literal(true) })
