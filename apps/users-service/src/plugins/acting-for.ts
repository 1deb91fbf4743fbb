import type { Caller } from '@quire/auth'
import type { UserRecord } from '@quire/contracts'
import { fail } from '@quire/service-kit'
import type { UsersRepository } from './users-repository.js'

/**
 * The user a caller may act for with the power of its credentials (minting, listing, revoking long-lived
 * tokens). A token works in every environment of its user, so an administrator may do this only for users
 * who belong to no environment it does not administer, and never for a super-administrator; a
 * super-administrator may for anyone in the environment; everyone may for itself.
 */
export async function userToActFor(users: UsersRepository, caller: Caller, userId: string): Promise<UserRecord> {
  const environmentId = caller.environmentId ?? ''
  if (userId === caller.userId) {
    const self = await users.findById(userId)
    if (!self) throw fail('user_not_found', `No user ${userId}`)
    return self
  }
  if (!caller.administrator) throw fail('forbidden', 'Only administrators act for other users')
  const target = await users.findInEnvironment(userId, environmentId)
  if (!target) {
    throw fail('user_not_found', `No user ${userId} in environment ${environmentId}`, 'This user does not exist')
  }
  if (caller.superAdministrator) return target
  if (target.isSuperAdministrator) throw fail('forbidden', 'Only a super-administrator acts for a super-administrator')
  const self = await users.findById(caller.userId)
  const administered = (id: string) =>
    self?.profile.environments[id]?.administrator === true && self.profile.environments[id]?.active === true
  if (!target.environmentIds.every(administered)) {
    throw fail('forbidden', `User ${userId} also belongs to environments the caller does not administer`)
  }
  return target
}
