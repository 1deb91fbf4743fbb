import type { Scope } from '@quire/auth'
import { fail } from '@quire/service-kit'
import type { UserRecord } from '../collections.js'

/** What the decision reads, loaded beforehand by the users repository. */
export interface ActingForFacts {
  /** The user named in the path: by id when it is the caller, else among the members of the scope's environment. */
  target: UserRecord | null
  /** The caller's own record. */
  actor: UserRecord | null
}

/**
 * The user a caller may act for with the power of its credentials (minting, listing, revoking long-lived
 * tokens). A token works in every environment of its user, so an administrator may do this only for users
 * who belong to no environment it does not administer, and never for a super-administrator; a
 * super-administrator may for anyone in the environment; everyone may for itself.
 */
export function userToActFor(scope: Scope, userId: string, { target, actor }: ActingForFacts): UserRecord {
  const { environmentId } = scope
  if (userId === scope.userId) {
    if (!target) throw fail('user_not_found', `No user ${userId}`)
    return target
  }
  if (!scope.administrator) throw fail('forbidden', 'Only administrators act for other users')
  if (!target) {
    throw fail('user_not_found', `No user ${userId} in environment ${environmentId}`, 'This user does not exist')
  }
  if (scope.superAdministrator) return target
  if (target.isSuperAdministrator) throw fail('forbidden', 'Only a super-administrator acts for a super-administrator')
  // Bound credentials (a token another user minted) act in their environments alone, whatever the actor's role elsewhere.
  const administered = (id: string) =>
    actor?.profile.environments[id]?.administrator === true &&
    actor.profile.environments[id]?.active === true &&
    (scope.environmentIds?.includes(id) ?? true)
  if (!target.environmentIds.every(administered)) {
    throw fail('forbidden', `User ${userId} also belongs to environments the caller does not administer`)
  }
  return target
}

/**
 * The environments a long-lived token minted by the scope's caller for `user` opens (stored on the token): those
 * the minter could act in for the user, which `userToActFor` made every one of the user's today. Joining another
 * environment later grants the token nothing there. Undefined, unbound, when the token is the user's own or a
 * super-administrator's: it follows the user, as the user's password does.
 */
export const mintedEnvironments = (scope: Scope, user: UserRecord): string[] | undefined =>
  user._id === scope.userId || scope.superAdministrator ? undefined : [...user.environmentIds]
