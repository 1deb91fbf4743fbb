import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Caller, Scope } from '@quire/auth'
import { newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS, type UserRecord } from '../collections.js'
import { verifyPassword } from '../lib/passwords.js'
import type { LoginThrottle } from './login-throttle.js'
import type { TwoFactor } from './two-factor.js'

interface LoginRequest {
  username: string
  password: string
  code?: string
  address: string
}

/** Either the signed-in user, or how many seconds the throttle asks the client to wait. */
type LoginOutcome = { userId: string } | { retryAfter: number }

export interface Accounts {
  /** Throws `unauthorized` / `two_factor_required` for wrong credentials or a missing or wrong code. */
  login(request: LoginRequest): Promise<LoginOutcome>
  setupTwoFactor(userId: string): Promise<{ secret: string; uri: string }>
  enableTwoFactor(userId: string, code: string): Promise<{ recoveryCodes: string[] }>
  /**
   * Clears the user's TOTP and recovery codes, ends its sessions, and audits it, all in one transaction. `scope`
   * is the environment the call names: its administrators may, for its members; without one, only a
   * super-administrator may, for anyone. Only a super-administrator may for a super-administrator.
   */
  resetTwoFactor(userId: string, caller: Caller, scope: Scope | null): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    accounts: Accounts
  }
}

/** A valid scrypt hash of nothing anyone knows: unknown users cost as much time as wrong passwords. */
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='

function accounts(store: RecordStore, throttle: LoginThrottle, twoFactor: TwoFactor): Accounts {
  const users = COLLECTIONS.users.in(store)
  const wrongCredentials = () => fail('unauthorized', 'Wrong username or password')

  /** A TOTP of a step not used yet, or an unused recovery code; consumed by a conditional write. */
  async function checkSecondFactor(user: UserRecord, code: string | undefined): Promise<boolean> {
    const { authentication } = user
    if (!authentication.totpEnabled || !authentication.totpSecret) return true
    if (code === undefined) return false
    const step = twoFactor.verify(authentication.totpSecret, code, authentication.totpLastStep)
    if (step !== null) {
      const filter = { _id: user._id, 'authentication.totpLastStep': authentication.totpLastStep ?? { $exists: false } }
      return (await users.updateOne(filter, { $set: { 'authentication.totpLastStep': step } })) !== null
    }
    const remaining = twoFactor.useRecoveryCode(authentication, code)
    if (!remaining) return false
    // Written only if the list is still the one read: two logins cannot both spend the same code.
    const filter = { _id: user._id, 'authentication.recoveryCodeHashes': { $eq: authentication.recoveryCodeHashes } }
    return (await users.updateOne(filter, { $set: { 'authentication.recoveryCodeHashes': remaining } })) !== null
  }

  async function findEnabledUser(userId: string): Promise<UserRecord> {
    const user = await users.findOne({ _id: userId })
    if (!user) throw fail('unauthorized', 'The token is no longer valid')
    if (user.authentication.totpEnabled) {
      throw fail(
        'forbidden',
        'Two-factor authentication is already enabled',
        'Two-factor authentication is already on; ask an administrator to reset it first',
      )
    }
    return user
  }

  return {
    async login({ username, password, code, address }) {
      const user =
        (await users.findOne({ username })) ?? (await users.findOne({ 'globalEmails.address': username.toLowerCase() }))
      const attempt = { account: user?._id ?? username.toLowerCase(), address }
      const wait = await throttle.retryAfter(attempt)
      if (wait !== null) return { retryAfter: wait }
      // Same answer whichever part was wrong, and a hash is computed either way so timing does not tell.
      const valid = await verifyPassword(password, user?.authentication.passwordHash ?? DUMMY_HASH)
      if (!user || !valid) {
        await throttle.failed(attempt)
        throw wrongCredentials()
      }
      if (!(await checkSecondFactor(user, code))) {
        if (code !== undefined) await throttle.failed(attempt)
        throw fail(
          'two_factor_required',
          code === undefined ? 'A two-factor code is required' : 'The two-factor code is not valid',
        )
      }
      await throttle.succeeded(attempt)
      await users.updateOne({ _id: user._id }, { $set: { lastLogin: new Date().toISOString() } })
      return { userId: user._id }
    },

    async setupTwoFactor(userId) {
      const user = await findEnabledUser(userId)
      const setup = twoFactor.setup(user.username)
      // Pending until enabled with a code from it: a setup nobody finishes changes nothing at login.
      await users.updateOne(
        { _id: userId },
        { $set: { 'authentication.totpSecret': setup.secret, 'authentication.totpEnabled': false } },
      )
      return setup
    },

    async enableTwoFactor(userId, code) {
      const user = await findEnabledUser(userId)
      const secret = user.authentication.totpSecret
      if (!secret) throw fail('validation_error', 'Two-factor setup has not been started: call /auth/2fa/setup first')
      const step = twoFactor.verify(secret, code)
      if (step === null) throw fail('validation_error', 'body/code is not a valid code for the secret being set up')
      const { codes, hashes } = twoFactor.recoveryCodes()
      const updated = await users.updateOne(
        { _id: userId, 'authentication.totpSecret': secret },
        {
          $set: {
            'authentication.totpEnabled': true,
            'authentication.totpLastStep': step,
            'authentication.recoveryCodeHashes': hashes,
          },
        },
      )
      if (!updated) throw fail('validation_error', 'Two-factor setup changed meanwhile; start it again')
      return { recoveryCodes: codes }
    },

    async resetTwoFactor(userId, caller, scope) {
      if (scope === null && !caller.superAdministrator) {
        throw fail('environment_id_missing', 'The environment-id header is required', 'No environment was selected')
      }
      if (scope !== null && !scope.administrator) {
        throw fail('forbidden', 'This call needs an administrator of the environment')
      }
      const target = await users.findOne(
        scope === null ? { _id: userId } : { _id: userId, environmentIds: scope.environmentId },
      )
      if (!target) throw fail('user_not_found', `No user ${userId} in ${scope?.environmentId ?? 'any environment'}`)
      if (target.isSuperAdministrator && !caller.superAdministrator) {
        throw fail('forbidden', "Only a super-administrator may reset a super-administrator's 2FA")
      }
      await store.transaction(async (tx) => {
        await COLLECTIONS.users.in(tx).updateOne(
          { _id: target._id },
          {
            $unset: {
              'authentication.totpSecret': true,
              'authentication.totpEnabled': true,
              'authentication.totpLastStep': true,
              'authentication.recoveryCodeHashes': true,
            },
            $set: { 'authentication.sessionsValidAfter': Date.now() },
          },
        )
        await COLLECTIONS.auditLog.in(tx).insertOne({
          _id: newObjectId(),
          action: 'reset-2FA',
          actorUserId: caller.userId,
          targetUserId: target._id,
          environmentId: scope?.environmentId ?? null,
          _createdOn: new Date().toISOString(),
        })
      })
    },
  }
}

/** `app.accounts`: signing in (throttled, with the second factor) and the account's own security settings. */
export const accountsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('accounts', accounts(store, app.loginThrottle, app.twoFactor))
  },
  {
    name: '@quire/users-accounts',
    fastify: '5.x',
    dependencies: ['@quire/users-login-throttle', '@quire/users-two-factor'],
  },
)
