import type { Caller, Scope } from '@quire/auth'
import { newObjectId, StoreFullError, type RecordStore } from '@quire/records'
import { COLLECTIONS, type UserRecord } from '../collections.js'
import { fail } from '@quire/service-kit'
import { RetryLater } from '../lib/fail.js'
import { loginKey } from '../lib/identifiers.js'
import { hashPassword, verifyPassword } from '../lib/passwords.js'
import { endSessionsOf } from './sessions.js'
import type { Throttle } from './throttle.js'
import type { TwoFactor } from './two-factor.js'
import type { UsersRepository } from './users-repository.js'

interface LoginRequest {
  username: string
  password: string
  code?: string
  address: string
}

/** A signed-in user proving it again with its current password, from a client address. */
interface Proof {
  userId: string
  password: string
  address: string
}

export interface Accounts {
  /** The user signed in. Throws `unauthorized` / `two_factor_required`, or `RetryLater` past the budget. */
  login(request: LoginRequest): Promise<{ userId: string }>
  setupTwoFactor(userId: string): Promise<{ secret: string; uri: string }>
  /** Turns 2FA on with a code of the pending secret; needs the current password. */
  enableTwoFactor(proof: Proof, code: string): Promise<{ recoveryCodes: string[] }>
  /** Turns 2FA off; needs the current password. */
  disableTwoFactor(proof: Proof): Promise<void>
  /** New recovery codes replace the old ones; needs the current password and 2FA on. */
  regenerateRecoveryCodes(proof: Proof): Promise<{ recoveryCodes: string[] }>
  /**
   * Sets a new password, ends every session issued until now and revokes the long-lived tokens; needs the current
   * password. Returns how many tokens were revoked.
   */
  changePassword(proof: Proof, newPassword: string): Promise<number>
  /** Every access token of the user issued until now is refused, and its sessions end. */
  signOutEverywhere(userId: string): Promise<void>
  /**
   * Clears the user's TOTP and recovery codes, ends its sessions, revokes its long-lived tokens and audits it, all
   * in one transaction; returns how many tokens were revoked. A super-administrator may for anyone (`scope`
   * optional); otherwise an administrator of `scope`'s environment who also administers EVERY environment the
   * user belongs to (what it resets opens all of them), never for a super-administrator.
   */
  resetTwoFactor(userId: string, caller: Caller, scope: Scope | null): Promise<number>
}

export interface AccountsOptions {
  store: RecordStore
  /** Login attempts per account and per client address, in the store, per window. */
  maxPerAccount: number
  maxPerAddress: number
  windowSeconds: number
}

/** A valid scrypt hash of nothing anyone knows: unknown users cost as much time as wrong passwords. */
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='

const TWO_FACTOR_FIELDS = {
  'authentication.totpSecret': true,
  'authentication.totpEnabled': true,
  'authentication.totpLastStep': true,
  'authentication.recoveryCodeHashes': true,
} as const

export function createAccounts(
  { store, ...options }: AccountsOptions,
  repository: UsersRepository,
  throttle: Throttle,
  twoFactor: TwoFactor,
): Accounts {
  const users = COLLECTIONS.users.in(store)
  const wrongCredentials = () => fail('unauthorized', 'Wrong username or password', 'Wrong username or password')
  const budgets = (account: string, address: string) => [
    { key: `login-account:${account}`, max: options.maxPerAccount },
    { key: `login-address:${address}`, max: options.maxPerAddress },
  ]

  /**
   * Checks `password` against `user` (or the dummy hash) within the login budgets: one attempt of the account's and
   * of the address's is reserved in the store BEFORE the slow hash, so parallel guesses cannot outrun the count.
   * A wrong password keeps its reservation (it is a failure); the caller settles the others.
   */
  async function checkPassword(user: UserRecord | null, account: string, password: string, address: string) {
    const wait = await throttle.reserve(budgets(account, address), options.windowSeconds)
    if (wait !== null) throw new RetryLater(wait, 'failed sign-in attempts')
    return verifyPassword(password, user?.authentication.passwordHash ?? DUMMY_HASH)
  }

  /** Not a failure after all: its attempts go back (the account's failures are forgotten on a success). */
  async function settle(account: string, address: string, success: boolean) {
    const [accountKey, addressKey] = budgets(account, address)
    if (!accountKey || !addressKey) return
    if (success) await throttle.clear(accountKey.key)
    else await throttle.release(accountKey.key)
    await throttle.release(addressKey.key)
  }

  /** The signed-in user, when `proof.password` is its password; a wrong one counts as a failed login. */
  async function proven({ userId, password, address }: Proof): Promise<UserRecord> {
    const user = await users.findOne({ _id: userId })
    if (!user) throw fail('unauthorized', 'The token is no longer valid')
    if (!(await checkPassword(user, user._id, password, address))) {
      throw fail('forbidden', 'The current password is wrong', 'The current password is not correct')
    }
    await settle(user._id, address, true)
    return user
  }

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

  function refuseWhenEnabled(user: UserRecord): void {
    if (user.authentication.totpEnabled) {
      throw fail(
        'forbidden',
        'Two-factor authentication is already enabled',
        'Two-factor authentication is already on; ask an administrator to reset it first',
      )
    }
  }

  /** Whether `actor` is an active administrator of every environment `target` belongs to, within its credentials. */
  const administersAll = (actor: UserRecord | null, target: UserRecord, bound?: readonly string[]) =>
    target.environmentIds.every(
      (id) =>
        actor?.profile.environments[id]?.administrator === true &&
        actor.profile.environments[id]?.active === true &&
        (bound?.includes(id) ?? true),
    )

  return {
    async login({ username, password, code, address }) {
      // A username may itself be an e-mail address: the username wins, then the account-level e-mail.
      const { byUsername, byEmail } = await repository.findByName(username)
      const user = byUsername ?? byEmail
      const account = user?._id ?? loginKey(username)
      // Same answer whichever part was wrong, and a hash is computed either way so timing does not tell.
      const valid = await checkPassword(user, account, password, address)
      if (!user || !valid) throw wrongCredentials()
      if (!(await checkSecondFactor(user, code))) {
        // A missing code is the normal first step of a 2FA login, not a failure; a wrong one is.
        if (code === undefined) await settle(account, address, false)
        throw fail(
          'two_factor_required',
          code === undefined ? 'A two-factor code is required' : 'The two-factor code is not valid',
        )
      }
      await settle(account, address, true)
      try {
        await users.updateOne({ _id: user._id }, { $set: { lastLogin: new Date().toISOString() } })
      } catch (err) {
        // A full disk does not stop signing in: `lastLogin` stays as it was.
        if (!(err instanceof StoreFullError)) throw err
      }
      return { userId: user._id }
    },

    async setupTwoFactor(userId) {
      const user = await users.findOne({ _id: userId })
      if (!user) throw fail('unauthorized', 'The token is no longer valid')
      refuseWhenEnabled(user)
      const { secret, uri, stored } = twoFactor.setup(user.username)
      // Pending until enabled with a code from it (and the password): a setup nobody finishes changes nothing.
      await users.updateOne(
        { _id: userId },
        { $set: { 'authentication.totpSecret': stored, 'authentication.totpEnabled': false } },
      )
      return { secret, uri }
    },

    async enableTwoFactor(proof, code) {
      const user = await proven(proof)
      refuseWhenEnabled(user)
      const secret = user.authentication.totpSecret
      if (!secret) {
        throw fail(
          'validation_error',
          'Two-factor setup has not been started: call /auth/2fa/setup first',
          'Start the two-factor setup first',
        )
      }
      const step = twoFactor.verify(secret, code)
      if (step === null) {
        throw fail(
          'validation_error',
          'body/code is not a valid code for the secret being set up',
          'This code is not valid; enter the current code from your authenticator app',
        )
      }
      const { codes, hashes } = twoFactor.recoveryCodes()
      const updated = await users.updateOne(
        { _id: proof.userId, 'authentication.totpSecret': secret },
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

    async disableTwoFactor(proof) {
      await proven(proof)
      await users.updateOne({ _id: proof.userId }, { $unset: TWO_FACTOR_FIELDS })
    },

    async regenerateRecoveryCodes(proof) {
      const user = await proven(proof)
      if (!user.authentication.totpEnabled) {
        throw fail('validation_error', 'Two-factor authentication is off', 'Turn two-factor authentication on first')
      }
      const { codes, hashes } = twoFactor.recoveryCodes()
      await users.updateOne(
        { _id: proof.userId, 'authentication.totpEnabled': true },
        { $set: { 'authentication.recoveryCodeHashes': hashes } },
      )
      return { recoveryCodes: codes }
    },

    async changePassword(proof, newPassword) {
      await proven(proof)
      const passwordHash = await hashPassword(newPassword)
      return store.transaction(async (tx) => {
        await COLLECTIONS.users
          .in(tx)
          .updateOne(
            { _id: proof.userId },
            { $set: { 'authentication.passwordHash': passwordHash, 'authentication.sessionsValidAfter': Date.now() } },
          )
        await endSessionsOf(tx, proof.userId)
        return COLLECTIONS.longLivedTokens.in(tx).deleteMany({ userId: proof.userId })
      })
    },

    async signOutEverywhere(userId) {
      await store.transaction(async (tx) => {
        await COLLECTIONS.users
          .in(tx)
          .updateOne({ _id: userId }, { $set: { 'authentication.sessionsValidAfter': Date.now() } })
        await endSessionsOf(tx, userId)
      })
    },

    async resetTwoFactor(userId, caller, scope) {
      if (scope === null && !caller.superAdministrator) {
        throw fail('environment_id_missing', 'The environment-id header is required', 'No environment was selected')
      }
      if (scope !== null && !scope.administrator) {
        throw fail('forbidden', 'This call needs an administrator of the environment')
      }
      const [target, actor] = await Promise.all([
        users.findOne(scope === null ? { _id: userId } : { _id: userId, environmentIds: scope.environmentId }),
        caller.superAdministrator ? null : users.findOne({ _id: caller.userId }),
      ])
      if (!target) throw fail('user_not_found', `No user ${userId} in ${scope?.environmentId ?? 'any environment'}`)
      if (!caller.superAdministrator) {
        if (target.isSuperAdministrator) {
          throw fail('forbidden', "Only a super-administrator may reset a super-administrator's 2FA")
        }
        if (!administersAll(actor, target, caller.environmentIds)) {
          throw fail('forbidden', `User ${userId} also belongs to environments the caller does not administer`)
        }
      }
      return store.transaction(async (tx) => {
        await COLLECTIONS.users
          .in(tx)
          .updateOne(
            { _id: target._id },
            { $unset: TWO_FACTOR_FIELDS, $set: { 'authentication.sessionsValidAfter': Date.now() } },
          )
        await endSessionsOf(tx, target._id)
        const revoked = await COLLECTIONS.longLivedTokens.in(tx).deleteMany({ userId: target._id })
        await COLLECTIONS.auditLog.in(tx).insertOne({
          _id: newObjectId(),
          action: 'reset-2FA',
          actorUserId: caller.userId,
          targetUserId: target._id,
          environmentId: scope?.environmentId ?? null,
          _createdOn: new Date().toISOString(),
        })
        return revoked
      })
    },
  }
}
