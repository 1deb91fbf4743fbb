import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { onRequestAsyncHookHandler } from 'fastify'
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
import type { Accounts } from '../plugins/accounts.js'
import type { PasswordReset } from '../plugins/password-reset.js'
import type { UsersRepository } from '../plugins/users-repository.js'

export interface AuthRoutesOptions {
  accounts: Accounts
  passwordReset: PasswordReset
  users: UsersRepository
  accessTokenTtl: number
}

/** `/auth/*`: getting a token, and the ways to recover or secure an account. No environment needed. */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, options) => {
  const { accounts, passwordReset, accessTokenTtl } = options

  app.post(
    '/login',
    { schema: { body: LoginBodySchema, response: { 200: Ok(LoginResultSchema) } } },
    async function login(request, reply) {
      const outcome = await accounts.login({ ...request.body, address: request.ip })
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
      await passwordReset.request(request.body)
      return { status: 'ok' as const, data: { requested: true as const } }
    },
  )

  app.post(
    '/reset-password/confirm',
    { schema: { body: ConfirmResetPasswordBodySchema, response: { 200: Ok(ConfirmResetPasswordResultSchema) } } },
    async function confirmPasswordReset(request) {
      const userId = await passwordReset.confirm(request.body.token, request.body.password)
      return { status: 'ok' as const, data: { userId } }
    },
  )

  await app.register(twoFactorRoutes, { accounts })
  await app.register(resetTwoFactorRoutes, { accounts, users: options.users })
}

/** The signed-in user secures its own account; only with an access token from an interactive sign-in. */
const twoFactorRoutes: FastifyPluginAsyncTypebox<Pick<AuthRoutesOptions, 'accounts'>> = async (app, { accounts }) => {
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
      return { status: 'ok' as const, data: await accounts.setupTwoFactor(request.caller.userId) }
    },
  )

  app.post(
    '/2fa/enable',
    { schema: { body: TwoFactorEnableBodySchema, response: { 200: Ok(TwoFactorEnabledSchema) } } },
    async function enableTwoFactor(request) {
      return { status: 'ok' as const, data: await accounts.enableTwoFactor(request.caller.userId, request.body.code) }
    },
  )
}

/** An administrator of the given environment, or a super-administrator with or without one. */
const resetTwoFactorRoutes: FastifyPluginAsyncTypebox<Pick<AuthRoutesOptions, 'accounts' | 'users'>> = async (
  app,
  { accounts, users },
) => {
  const scoped: onRequestAsyncHookHandler = async function scopeWhenGiven(request, reply) {
    const hook = request.headers['environment-id'] === undefined ? app.auth.authenticate : app.auth.requireEnvironment
    await hook.call(app, request, reply)
  }
  app.addHook('onRequest', scoped)

  app.post(
    '/reset-2FA',
    { schema: { body: ResetTwoFactorBodySchema, response: { 200: Ok(ResetTwoFactorResultSchema) } } },
    async function resetTwoFactor(request) {
      const { caller } = request
      const { userId } = request.body
      if (caller.environmentId === null && !caller.superAdministrator) {
        throw fail('environment_id_missing', 'The environment-id header is required', 'No environment was selected')
      }
      if (!caller.administrator && !caller.superAdministrator) {
        throw fail('forbidden', 'This call needs an administrator of the environment')
      }
      const target =
        caller.environmentId === null
          ? await users.findById(userId)
          : await users.findInEnvironment(userId, caller.environmentId)
      if (!target) throw fail('user_not_found', `No user ${userId} in ${caller.environmentId ?? 'any environment'}`)
      if (target.isSuperAdministrator && !caller.superAdministrator) {
        throw fail('forbidden', "Only a super-administrator may reset a super-administrator's 2FA")
      }
      await accounts.resetTwoFactor(target, caller.userId, caller.environmentId)
      return { status: 'ok' as const, data: { userId, twoFactorEnabled: false as const } }
    },
  )
}
