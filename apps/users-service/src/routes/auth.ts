import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import {
  ConfirmResetPasswordBodySchema,
  ConfirmResetPasswordResultSchema,
  LoginBodySchema,
  LoginResultSchema,
  Ok,
  ResetPasswordBodySchema,
  ResetPasswordResultSchema,
  ResetTwoFactorBodySchema,
  ResetTwoFactorResultSchema,
  TwoFactorEnableBodySchema,
  TwoFactorEnabledSchema,
  TwoFactorSetupSchema,
} from '@quire/contracts'
import { fail } from '@quire/service-kit'

interface AuthRoutesOptions {
  /** Seconds an access token lives, as the auth plugin signs it: the login answer tells the client. */
  accessTokenTtl: number
}

/** `/auth/*`: getting a token, and the ways to recover or secure an account. No environment needed. */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { accessTokenTtl }) => {
  app.post(
    '/login',
    { schema: { body: LoginBodySchema, response: { 200: Ok(LoginResultSchema) } } },
    async function login(request, reply) {
      const outcome = await app.accounts.login({ ...request.body, address: request.ip })
      if ('retryAfter' in outcome) {
        reply.header('retry-after', String(outcome.retryAfter))
        throw fail(
          'rate_limited',
          `Too many failed logins; retry in ${outcome.retryAfter} s`,
          'Too many failed attempts; please wait and try again',
        )
      }
      const accessToken = app.auth.issueAccessToken(outcome.userId)
      return {
        status: 'ok' as const,
        data: { accessToken, tokenType: 'Bearer' as const, expiresIn: accessTokenTtl, userId: outcome.userId },
      }
    },
  )

  app.post(
    '/reset-password',
    { schema: { body: ResetPasswordBodySchema, response: { 200: Ok(ResetPasswordResultSchema) } } },
    async function requestPasswordReset(request) {
      await app.passwordReset.request(request.body)
      return { status: 'ok' as const, data: { requested: true as const } }
    },
  )

  app.post(
    '/reset-password/confirm',
    { schema: { body: ConfirmResetPasswordBodySchema, response: { 200: Ok(ConfirmResetPasswordResultSchema) } } },
    async function confirmPasswordReset(request) {
      const userId = await app.passwordReset.confirm(request.body.token, request.body.password)
      return { status: 'ok' as const, data: { userId } }
    },
  )

  await app.register(twoFactorRoutes)
  await app.register(resetTwoFactorRoutes)
}

/** The signed-in user secures its own account; only with an access token from an interactive sign-in. */
const twoFactorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.auth.authenticate)
  app.addHook('onRequest', async function requireInteractiveSignIn(request) {
    if (request.caller.via !== 'access-token') {
      throw fail('forbidden', 'Two-factor setup needs an access token from /auth/login')
    }
  })

  app.post(
    '/2fa/setup',
    { schema: { response: { 200: Ok(TwoFactorSetupSchema) } } },
    async function setupTwoFactor(request) {
      return { status: 'ok' as const, data: await app.accounts.setupTwoFactor(request.caller.userId) }
    },
  )

  app.post(
    '/2fa/enable',
    { schema: { body: TwoFactorEnableBodySchema, response: { 200: Ok(TwoFactorEnabledSchema) } } },
    async function enableTwoFactor(request) {
      return {
        status: 'ok' as const,
        data: await app.accounts.enableTwoFactor(request.caller.userId, request.body.code),
      }
    },
  )
}

/** Whether the call names an environment: then it runs behind `requireEnvironment`, else behind `authenticate`. */
const namesEnvironment = (request: FastifyRequest) => request.headers['environment-id'] !== undefined

/** An administrator of the given environment, or a super-administrator with or without one. */
const resetTwoFactorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const scoped: onRequestAsyncHookHandler = async function scopeWhenGiven(request, reply) {
    const hook = namesEnvironment(request) ? app.auth.requireEnvironment : app.auth.authenticate
    await hook.call(app, request, reply)
  }
  app.addHook('onRequest', scoped)

  app.post(
    '/reset-2FA',
    { schema: { body: ResetTwoFactorBodySchema, response: { 200: Ok(ResetTwoFactorResultSchema) } } },
    async function resetTwoFactor(request) {
      const { userId } = request.body
      await app.accounts.resetTwoFactor(userId, request.caller, namesEnvironment(request) ? request.scope : null)
      return { status: 'ok' as const, data: { userId, twoFactorEnabled: false as const } }
    },
  )
}
