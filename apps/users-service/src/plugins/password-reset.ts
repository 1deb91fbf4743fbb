import { randomBytes } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ResetPasswordBody } from '@quire/contracts'
import { hashToken } from '@quire/identity'
import { newObjectId, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS, type UserRecord } from '../collections.js'
import { hashPassword } from '../lib/passwords.js'
import type { Mailer } from './mailer.js'

export interface PasswordReset {
  /** Mails a reset token when an account with an address matches; silent otherwise. */
  request(body: ResetPasswordBody): Promise<void>
  /** Consumes the token (once), sets the password and ends every session of the user. Returns the user id. */
  confirm(token: string, password: string): Promise<string>
}

declare module 'fastify' {
  interface FastifyInstance {
    passwordReset: PasswordReset
  }
}

interface PasswordResetOptions {
  store: RecordStore
  /** Seconds a reset token stays usable. */
  ttlSeconds: number
  /** Epoch ms (tests pass a fixed clock). */
  now: () => number
}

function passwordReset({ store, ...options }: PasswordResetOptions, mailer: Mailer): PasswordReset {
  const users = COLLECTIONS.users.in(store)
  const resets = COLLECTIONS.passwordResets.in(store)

  async function findAccount({
    email,
    username,
  }: ResetPasswordBody): Promise<{ user: UserRecord; address: string } | null> {
    if (email !== undefined) {
      const address = email.toLowerCase()
      const user = await users.findOne({ 'globalEmails.address': address })
      return user ? { user, address } : null
    }
    const user = await users.findOne({ username })
    // Only account-level addresses: an environment administrator can edit entries, and must not receive the mail.
    const address = user?.globalEmails[0]?.address
    return user && address ? { user, address } : null
  }

  return {
    async request(body) {
      const account = await findAccount(body)
      if (!account) return
      const now = options.now()
      // Expired resets are useless; clearing them here keeps the collection small without a sweeper.
      await resets.deleteMany({ expiresAt: { $lte: now } })
      const token = randomBytes(32).toString('base64url')
      await resets.insertOne({
        _id: newObjectId(),
        userId: account.user._id,
        tokenHash: hashToken(token),
        expiresAt: now + options.ttlSeconds * 1000,
        _createdOn: new Date(now).toISOString(),
      })
      await mailer.send({
        to: account.address,
        subject: 'Reset your Quire password',
        text:
          `Someone asked to reset the password of the Quire account "${account.user.username}".\n\n` +
          `Reset token: ${token}\n\nIt works once, within ${Math.round(options.ttlSeconds / 60)} minutes ` +
          '(POST /auth/reset-password/confirm with {"token", "password"}). If it was not you, ignore this mail.\n',
      })
    },

    async confirm(token, password) {
      // Deleting is what consumes it: of two concurrent confirmations only one gets the record.
      const reset = await resets.deleteOne({ tokenHash: hashToken(token) })
      if (!reset || reset.expiresAt <= options.now()) {
        throw fail(
          'unauthorized',
          'The reset token is invalid, used or expired',
          'This reset link no longer works; ask for a new one',
        )
      }
      const updated = await users.updateOne(
        { _id: reset.userId },
        // Access tokens carry their issue time; every one issued before now is refused from here on.
        {
          $set: {
            'authentication.passwordHash': await hashPassword(password),
            'authentication.sessionsValidAfter': Date.now(),
          },
        },
      )
      if (!updated) throw fail('unauthorized', 'The reset token is invalid, used or expired')
      await resets.deleteMany({ userId: reset.userId })
      return reset.userId
    },
  }
}

/** `app.passwordReset`: a single-use token mailed to the account's address, then a new password. */
export const passwordResetPlugin = fp(
  async (app: FastifyInstance, options: PasswordResetOptions) => {
    app.decorate('passwordReset', passwordReset(options, app.mailer))
  },
  { name: '@quire/users-password-reset', fastify: '5.x', dependencies: ['@quire/users-mailer'] },
)
