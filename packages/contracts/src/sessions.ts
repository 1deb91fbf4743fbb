import { Type } from '@sinclair/typebox'
import { IdSchema, TimestampSchema } from './common.js'
import { LoginResultSchema } from './users.js'

/** A refresh token: 43 base64url characters (32 random bytes). Longer or other characters are refused early. */
const RefreshTokenSchema = Type.String({ minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' })

/** `POST /auth/sessions/refresh` and `/auth/sessions/logout`: the session's current refresh token. */
export const RefreshBodySchema = Type.Object({ refreshToken: RefreshTokenSchema }, { additionalProperties: false })

/**
 * A sign-in that can be renewed: the login answer, and a refresh token good for one renewal within
 * `refreshExpiresIn` seconds. Each renewal answers a new pair; the refresh token used stops working.
 */
export const SessionSchema = Type.Object({
  ...LoginResultSchema.properties,
  refreshToken: Type.String(),
  refreshExpiresIn: Type.Integer(),
})

/** `DELETE /auth/sessions/{sessionId}`. */
export const SessionParamsSchema = Type.Object({ sessionId: IdSchema })

/** One of the caller's live sessions, as `GET /auth/sessions` lists them (renewed last first). */
export const SessionViewSchema = Type.Object({
  _id: IdSchema,
  /** The `User-Agent` of the client that opened it (first 256 characters; '' when none was sent). */
  userAgent: Type.String(),
  _createdOn: TimestampSchema,
  /** Its last renewal, or the last request made with one of its access tokens (to the minute). */
  lastUsedOn: TimestampSchema,
  /** When it ends unless renewed before. */
  expiresOn: TimestampSchema,
  /** The session of the access token this list was asked with. */
  current: Type.Boolean(),
})

/** `DELETE /auth/sessions/{sessionId}`: the session cannot renew, and its access tokens are refused at once. */
export const EndedSessionSchema = Type.Object({ _id: IdSchema, signedOut: Type.Literal(true) })
