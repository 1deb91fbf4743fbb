import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  EndedSessionSchema,
  LoginBodySchema,
  Ok,
  RefreshBodySchema,
  SessionParamsSchema,
  SessionSchema,
  SessionViewSchema,
  SignedOutSchema,
} from '@quire/contracts'
import { describeRoutes, fail } from '@quire/service-kit'
import { SESSION_SECONDS } from '../domain/sessions.js'
import { requireInteractiveSignIn } from './auth.js'

interface SessionsRoutesOptions {
  /** Seconds an access token lives, as the auth plugin signs it. */
  accessTokenTtl: number
}

/**
 * `/auth/sessions`: a sign-in that renews itself without the password (the console's), signs out on the server,
 * and whose sessions its user lists and ends one by one. Beside `/auth/login`, which stays as it is for scripts
 * and the CLI.
 */
export const sessionsRoutes: FastifyPluginAsyncTypebox<SessionsRoutesOptions> = async (app, { accessTokenTtl }) => {
  describeRoutes(app, { auth: 'none' })
  app.addHook('onRequest', app.auth.refuseDelegation)
  const answer = (userId: string, sessionId: string, refreshToken: string) => ({
    status: 'ok' as const,
    data: {
      accessToken: app.auth.issueAccessToken(userId, sessionId),
      tokenType: 'Bearer' as const,
      expiresIn: accessTokenTtl,
      userId,
      refreshToken,
      refreshExpiresIn: SESSION_SECONDS,
    },
  })

  app.post(
    '/',
    { schema: { body: LoginBodySchema, response: { 200: Ok(SessionSchema) } } },
    async function openSession(request) {
      const { userId } = await app.accounts.login({ ...request.body, address: request.ip })
      const { sessionId, refreshToken } = await app.sessions.open(userId, request.headers['user-agent'])
      return answer(userId, sessionId, refreshToken)
    },
  )

  app.post(
    '/refresh',
    { schema: { body: RefreshBodySchema, response: { 200: Ok(SessionSchema) } } },
    async function renewSession(request) {
      const renewed = await app.sessions.renew(request.body.refreshToken)
      if (!renewed) {
        throw fail('unauthorized', 'The refresh token is unknown, used or expired', 'Your session ended: sign in again')
      }
      return answer(renewed.userId, renewed.sessionId, renewed.refreshToken)
    },
  )

  app.post(
    '/logout',
    { schema: { body: RefreshBodySchema, response: { 200: Ok(SignedOutSchema) } } },
    async function endSession(request) {
      // The same answer for an unknown token: signing out twice is not an error, and nothing is told.
      await app.sessions.end(request.body.refreshToken)
      return { status: 'ok' as const, data: { signedOut: true as const } }
    },
  )

  await app.register(ownSessionsRoutes)
}

/** The signed-in user's own sessions, with an access token from a sign-in (not a long-lived token). */
const ownSessionsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  describeRoutes(app, { auth: 'bearer' })
  app.addHook('onRequest', app.auth.authenticate)
  app.addHook('onRequest', requireInteractiveSignIn)

  app.get(
    '/',
    { schema: { response: { 200: Ok(Type.Array(SessionViewSchema)) } } },
    async function listSessions(request) {
      const { userId, sessionId } = request.caller
      const sessions = await app.sessions.list(userId)
      return { status: 'ok' as const, data: sessions.map((each) => ({ ...each, current: each._id === sessionId })) }
    },
  )

  app.delete(
    '/:sessionId',
    { schema: { params: SessionParamsSchema, response: { 200: Ok(EndedSessionSchema) } } },
    async function endOwnSession(request) {
      await app.sessions.endOwn(request.caller.userId, request.params.sessionId)
      return { status: 'ok' as const, data: { _id: request.params.sessionId, signedOut: true as const } }
    },
  )
}
