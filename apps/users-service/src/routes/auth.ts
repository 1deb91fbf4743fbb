import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import {
  ChangePasswordBodySchema,
  ConfirmResetPasswordBodySchema,
  ConfirmResetPasswordResultSchema,
  CurrentPasswordBodySchema,
  LoginBodySchema,
  LoginResultSchema,
  Ok,
  PasswordChangedSchema,
  ResetPasswordBodySchema,
  ResetPasswordResultSchema,
  ResetTwoFactorBodySchema,
  ResetTwoFactorResultSchema,
  SignedOutSchema,
  TwoFactorDisabledSchema,
  TwoFactorEnableBodySchema,
  TwoFactorEnabledSchema,
  TwoFactorSetupSchema,
} from '@quire/contracts'
import { describeRoutes, fail } from '@quire/service-kit'

interface AuthRoutesOptions {
  /** Seconds an access token lives, as the auth plugin signs it: the login answer tells the client. */
  accessTokenTtl: number
}

/**
 * `/auth/*`: getting a token, and the ways to recover or secure an account. No environment needed. None is a server
 * script's (403), even for the user it acts for.
 */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, { accessTokenTtl }) => {
  describeRoutes(app, { auth: 'none' })
  app.addHook('onRequest', app.auth.refuseDelegation)
  const session = (userId: string) => ({
    accessToken: app.auth.issueAccessToken(userId),
    tokenType: 'Bearer' as const,
    expiresIn: accessTokenTtl,
    userId,
  })

  app.post(
    '/login',
    { schema: { body: LoginBodySchema, response: { 200: Ok(LoginResultSchema) } } },
    async function login(request) {
      const { userId } = await app.accounts.login({ ...request.body, address: request.ip })
      return { status: 'ok' as const, data: session(userId) }
    },
  )

  app.post(
    '/reset-password',
    {
      // `{}` and no body at all are answered like an unknown account: the answer never depends on the input.
      preValidation: async function defaultBody(request) {
        request.body ??= {}
      },
      schema: { body: ResetPasswordBodySchema, bodyOptional: true, response: { 200: Ok(ResetPasswordResultSchema) } },
    },
    async function requestPasswordReset(request) {
      await app.passwordReset.request(request.body, request.ip)
      return { status: 'ok' as const, data: { requested: true as const } }
    },
  )

  app.post(
    '/reset-password/confirm',
    { schema: { body: ConfirmResetPasswordBodySchema, response: { 200: Ok(ConfirmResetPasswordResultSchema) } } },
    async function confirmPasswordReset(request) {
      return { status: 'ok' as const, data: await app.passwordReset.confirm(request.body.token, request.body.password) }
    },
  )

  await app.register(ownAccountRoutes, { session })
  await app.register(resetTwoFactorRoutes)
}

/** After `authenticate`: an access token from a sign-in (`/auth/login`, `/auth/sessions`), not a long-lived token. */
export const requireInteractiveSignIn: onRequestAsyncHookHandler = async function requireInteractiveSignIn(request) {
  if (request.caller.via !== 'access-token') {
    throw fail(
      'forbidden',
      'This call needs an access token from /auth/login, not a long-lived token',
      'Sign in with your password to change your account’s security',
    )
  }
}

interface OwnAccountOptions {
  /** A fresh access token for the caller, as login answers it. */
  session(userId: string): { accessToken: string; tokenType: 'Bearer'; expiresIn: number; userId: string }
}

/**
 * The signed-in user secures its own account: only with an access token from an interactive sign-in (a
 * long-lived token is for scripts), and every change to how it signs in asks for the current password again.
 */
const ownAccountRoutes: FastifyPluginAsyncTypebox<OwnAccountOptions> = async (app, { session }) => {
  describeRoutes(app, { auth: 'bearer' })
  app.addHook('onRequest', app.auth.authenticate)
  app.addHook('onRequest', requireInteractiveSignIn)
  const proof = (request: FastifyRequest, password: string) => ({
    userId: request.caller.userId,
    password,
    address: request.ip,
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
      const { code, password } = request.body
      return { status: 'ok' as const, data: await app.accounts.enableTwoFactor(proof(request, password), code) }
    },
  )

  app.post(
    '/2fa/disable',
    { schema: { body: CurrentPasswordBodySchema, response: { 200: Ok(TwoFactorDisabledSchema) } } },
    async function disableTwoFactor(request) {
      await app.accounts.disableTwoFactor(proof(request, request.body.password))
      return { status: 'ok' as const, data: { twoFactorEnabled: false as const } }
    },
  )

  app.post(
    '/2fa/recovery-codes',
    { schema: { body: CurrentPasswordBodySchema, response: { 200: Ok(TwoFactorEnabledSchema) } } },
    async function regenerateRecoveryCodes(request) {
      return {
        status: 'ok' as const,
        data: await app.accounts.regenerateRecoveryCodes(proof(request, request.body.password)),
      }
    },
  )

  app.post(
    '/password',
    { schema: { body: ChangePasswordBodySchema, response: { 200: Ok(PasswordChangedSchema) } } },
    async function changePassword(request) {
      const { password, newPassword } = request.body
      const revokedLongLivedTokens = await app.accounts.changePassword(proof(request, password), newPassword)
      // Issued after the change, so this session alone outlives it.
      return { status: 'ok' as const, data: { ...session(request.caller.userId), revokedLongLivedTokens } }
    },
  )

  app.post(
    '/sign-out-everywhere',
    { schema: { response: { 200: Ok(SignedOutSchema) } } },
    async function signOutEverywhere(request) {
      await app.accounts.signOutEverywhere(request.caller.userId)
      return { status: 'ok' as const, data: { signedOut: true as const } }
    },
  )
}

/** Whether the call names an environment: then it runs behind `requireEnvironment`, else behind `authenticate`. */
const namesEnvironment = (request: FastifyRequest) => request.headers['environment-id'] !== undefined

/** A super-administrator, or an administrator of the given environment and of every other one of the user. */
const resetTwoFactorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const scoped: onRequestAsyncHookHandler = async function scopeWhenGiven(request, reply) {
    const hook = namesEnvironment(request) ? app.auth.requireEnvironment : app.auth.authenticate
    await hook.call(app, request, reply)
  }
  app.addHook('onRequest', scoped)
  // `environment-id` is optional here: the OpenAPI operation asks for the bearer token only.
  describeRoutes(app, { auth: 'bearer' })

  app.post(
    '/reset-2FA',
    { schema: { body: ResetTwoFactorBodySchema, response: { 200: Ok(ResetTwoFactorResultSchema) } } },
    async function resetTwoFactor(request) {
      const { userId } = request.body
      const scope = namesEnvironment(request) ? request.scope : null
      const revokedLongLivedTokens = await app.accounts.resetTwoFactor(userId, request.caller, scope)
      return { status: 'ok' as const, data: { userId, twoFactorEnabled: false as const, revokedLongLivedTokens } }
    },
  )
}
