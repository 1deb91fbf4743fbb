import { randomBytes } from 'node:crypto'
import type { ResetPasswordBody } from '@quire/contracts'
import { hashToken } from '@quire/identity'
import { newObjectId, type RecordStore } from '@quire/records'
import { COLLECTIONS, type UserRecord } from '../collections.js'
import { fail } from '@quire/service-kit'
import { RetryLater } from '../lib/fail.js'
import { loginKey, storedEmail } from '../lib/identifiers.js'
import { hashPassword } from '../lib/passwords.js'
import type { Mail, Mailer } from './mailer.js'
import { endSessionsOf } from './sessions.js'
import type { Throttle } from './throttle.js'
import type { UsersRepository } from './users-repository.js'

export interface PasswordReset {
  /**
   * Mails a reset token when an account matches; the same work otherwise. `RetryLater` when the account's or the
   * address's budget is spent.
   */
  request(body: ResetPasswordBody, address: string): Promise<void>
  /**
   * Consumes the token (once), sets the password, ends every session of the user and revokes its long-lived
   * tokens. Returns the user id and how many tokens were revoked.
   */
  confirm(token: string, password: string): Promise<{ userId: string; revokedLongLivedTokens: number }>
}

export interface PasswordResetOptions {
  store: RecordStore
  /** Seconds a reset token stays usable. */
  ttlSeconds: number
  maxPerAccount: number
  maxPerAddress: number
  windowSeconds: number
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
}

const invalidToken = () =>
  fail(
    'unauthorized',
    'The reset token is invalid, used or expired',
    'This reset link no longer works; ask for a new one',
  )

export function createPasswordReset(
  { store, ...options }: PasswordResetOptions,
  repository: UsersRepository,
  mailer: Mailer,
  throttle: Throttle,
): PasswordReset {
  const resets = COLLECTIONS.passwordResets.in(store)

  /**
   * The account named by `email` or `username`, either way round (a username may be an e-mail address), and the
   * address to mail. The same lookups whatever matches. Only account-level addresses: an environment administrator
   * can edit entries, and must not receive the mail. An address several older accounts share names none of them.
   */
  async function findAccount({ email, username }: ResetPasswordBody): Promise<{ user: UserRecord; to: string } | null> {
    const name = email ?? username ?? ''
    const { byUsername, byEmail } = await repository.findByName(name)
    const user = email !== undefined ? (byEmail ?? byUsername) : (byUsername ?? byEmail)
    if (!user) return null
    const address = storedEmail(name)
    const to = user.globalEmails.some((entry) => entry.address === address) ? address : user.globalEmails[0]?.address
    return to ? { user, to } : null
  }

  function resetMail(username: string, to: string, token: string): Mail {
    const minutes = Math.round(options.ttlSeconds / 60)
    const text = (secret: string) =>
      `Someone asked to reset the password of the Quire account "${username}".\n\n` +
      `Reset token: ${secret}\n\nIt works once, within ${minutes} minutes ` +
      '(POST /auth/reset-password/confirm with {"token", "password"}). If it was not you, ignore this mail.\n'
    return { to, subject: 'Reset your Quire password', text: text(token), redactedText: text('[removed once sent]') }
  }

  return {
    async request(body, address) {
      const account = await findAccount(body)
      const name = loginKey(body.email ?? body.username ?? '')
      const wait = await throttle.reserve(
        [
          { key: `reset-account:${account?.user._id ?? name}`, max: options.maxPerAccount },
          { key: `reset-address:${address}`, max: options.maxPerAddress },
        ],
        options.windowSeconds,
      )
      if (wait !== null) throw new RetryLater(wait, 'password reset requests')
      // From here the same work whether or not an account matched: a token, its hash, a reset and an outbox record
      // in one transaction. An unmatched one is unusable (no user) and its mail `discarded`; the purge takes both.
      const now = options.now()
      const expiresAt = now + options.ttlSeconds * 1000
      const token = randomBytes(32).toString('base64url')
      const mail = await store.transaction(async (tx) => {
        await COLLECTIONS.passwordResets.in(tx).insertOne({
          _id: newObjectId(),
          userId: account?.user._id ?? null,
          tokenHash: hashToken(token),
          expiresAt,
          _createdOn: new Date(now).toISOString(),
        })
        return mailer.queue(tx, account ? resetMail(account.user.username, account.to, token) : null, expiresAt)
      })
      mailer.deliverSoon(mail)
    },

    async confirm(token, password) {
      // Deleting is what consumes it: of two concurrent confirmations only one gets the record.
      const reset = await resets.deleteOne({ tokenHash: hashToken(token) })
      if (!reset || reset.userId === null || reset.expiresAt <= options.now()) throw invalidToken()
      const { userId } = reset
      const passwordHash = await hashPassword(password)
      const revokedLongLivedTokens = await store.transaction(async (tx) => {
        const updated = await COLLECTIONS.users.in(tx).updateOne(
          { _id: userId },
          // Access tokens carry their issue time; every one issued before now is refused from here on.
          { $set: { 'authentication.passwordHash': passwordHash, 'authentication.sessionsValidAfter': Date.now() } },
        )
        if (!updated) throw invalidToken()
        await COLLECTIONS.passwordResets.in(tx).deleteMany({ userId })
        await endSessionsOf(tx, userId)
        // Whoever took over the account may have minted tokens: a reset ends every credential.
        return COLLECTIONS.longLivedTokens.in(tx).deleteMany({ userId })
      })
      return { userId, revokedLongLivedTokens }
    },
  }
}
