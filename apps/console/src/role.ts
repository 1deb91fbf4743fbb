import { createContext } from 'preact'
import { useContext, useEffect, useState } from 'preact/hooks'
import { dataOf, quire } from './api.js'

/** What the signed-in user may do in the current environment: the console offers only that. */
interface Role {
  administrator: boolean
  superAdministrator: boolean
}

/** Until the user's record answers, nothing admin-only is offered: a member never sees it flash. */
const NOBODY: Role = { administrator: false, superAdministrator: false }

export const RoleContext = createContext<Role>(NOBODY)
export const useRole = () => useContext(RoleContext)

/** The user's own record in the environment says its role there (the API has no other "who am I"). */
export function useOwnRole(userId: string | undefined, environmentId: string): Role {
  const [role, setRole] = useState<Role>(NOBODY)
  useEffect(() => {
    setRole(NOBODY)
    if (!userId || !environmentId) return
    let live = true
    dataOf(quire.GET('/api/v2/users/{userId}', { params: { path: { userId } } })).then(
      ([own]) => {
        const superAdministrator = own?.isSuperAdministrator === true
        const administrator = superAdministrator || own?.profile?.environments[environmentId]?.administrator === true
        if (live) setRole({ administrator, superAdministrator })
      },
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [userId, environmentId])
  return role
}
