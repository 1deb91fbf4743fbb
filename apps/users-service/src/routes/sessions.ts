import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { LoginBodySchema, Ok, RefreshBodySchema, SessionSchema, SignedOutSchema } from '@quire/contracts'
import type { RecordStore } from '@quire/records'
import { describeRoutes, fail } from '@quire/service-kit'
import { openSessions } from '../domain/sessions.js'

/** A session not renewed for this long ends: a browser left closed for two weeks signs in again. */
const SESSION_DAYS = 14

interface SessionsRoutesOptions {
  store: RecordStore
  /** Seconds an access token lives, as the auth plugin signs it. */
  accessTokenTtl: number
  now: () => number
}

/**
 * `/auth/sessions`: a sign-in that renews itself without the password (the console's), and signs out on the
 * server. Beside `/auth/login`, which stays as it is for scripts and the CLI.
 */
export const sessionsRoutes: FastifyPluginAsyncTypebox<SessionsRoutesOptions> = async (
  app,
  { store, accessTokenTtl, now },
) => {
  describeRoutes(app, { auth: 'none' })
  app.addHook('onRequest', app.auth.refuseDelegation)
  const sessions = await openSessions(store, { lifetimeSeconds: SESSION_DAYS * 86_400, now })
  const answer = (userId: string, refreshToken: string) => ({
    status: 'ok' as const,
    data: {
      accessToken: app.auth.issueAccessToken(userId),
      tokenType: 'Bearer' as const,
      expiresIn: accessTokenTtl,
      userId,
      refreshToken,
      refreshExpiresIn: SESSION_DAYS * 86_400,
    },
  })

  app.post(
    '/',
    { schema: { body: LoginBodySchema, response: { 200: Ok(SessionSchema) } } },
    async function openSession(request) {
      const { userId } = await app.accounts.login({ ...request.body, address: request.ip })
      return answer(userId, await sessions.open(userId))
    },
  )

  app.post(
    '/refresh',
    { schema: { body: RefreshBodySchema, response: { 200: Ok(SessionSchema) } } },
    async function renewSession(request) {
      const renewed = await sessions.renew(request.body.refreshToken)
      if (!renewed) {
        throw fail('unauthorized', 'The refresh token is unknown, used or expired', 'Your session ended: sign in again')
      }
      return answer(renewed.userId, renewed.refreshToken)
    },
  )

  app.post(
    '/logout',
    { schema: { body: RefreshBodySchema, response: { 200: Ok(SignedOutSchema) } } },
    async function endSession(request) {
      // The same answer for an unknown token: signing out twice is not an error, and nothing is told.
      await sessions.end(request.body.refreshToken)
      return { status: 'ok' as const, data: { signedOut: true as const } }
    },
  )
}
