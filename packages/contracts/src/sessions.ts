import { Type } from '@sinclair/typebox'
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
