import type { Scope } from '@quire/auth'
import type { Permissions } from '@quire/contracts'
import type { Filter } from '@quire/records'
import type { ListQuery } from './list-query.js'

/** What the visibility rules read of a caller. */
type Role = Pick<Scope, 'administrator' | 'groups'>

const ACTIONS = ['read', 'create', 'update', 'delete']
const ADMINISTRATOR: Permissions = Object.freeze({ fullPermissions: true, userActionPermissions: ACTIONS })
const MEMBER: Permissions = Object.freeze({ fullPermissions: false, userActionPermissions: ACTIONS })
/** Each role's `_permissions` as a field of JSON text, serialized once instead of on every get and list. */
const ADMINISTRATOR_FIELD = `"_permissions":${JSON.stringify(ADMINISTRATOR)}`
const MEMBER_FIELD = `"_permissions":${JSON.stringify(MEMBER)}`

/**
 * `_permissions` of what a caller can see: members may act on every document visible to them; only
 * administrators hold full permissions (they also manage the definitions). One frozen object per role.
 */
export const permissionsOf = (role: Role): Permissions => (role.administrator ? ADMINISTRATOR : MEMBER)

/** The caller's `_permissions` as a field of JSON text, to append to a stored document's text. */
export const permissionsField = (role: Role): string => (role.administrator ? ADMINISTRATOR_FIELD : MEMBER_FIELD)

/** `_permissions` is computed, so it goes on a listed item unless the projection leaves it out. */
export function keepsPermissions(query: Pick<ListQuery, 'projection'>): boolean {
  const { projection } = query
  const including = Object.values(projection).includes(1)
  return including ? projection._permissions === 1 : projection._permissions !== 0
}

/**
 * Members see documents without access groups or sharing one of their groups; administrators see all. A filter,
 * so that a page is filled with visible documents only and a single document is read with the rule applied.
 */
export function visibilityFilter(role: Role): Filter | undefined {
  if (role.administrator) return undefined
  // No first group: empty, or missing or null in a record this API did not write.
  const noGroups = { 'accessGroups.0': { $exists: false } }
  return role.groups.length === 0 ? noGroups : { $or: [noGroups, { accessGroups: { $in: [...role.groups] } }] }
}

/** Adds `extra` with `$and`, keeping the client's top-level equalities where an index planner sees them. */
export function withCondition(filter: Filter, extra: Filter | undefined): Filter {
  if (!extra) return filter
  const and = Array.isArray(filter.$and) ? filter.$and : []
  return { ...filter, $and: [...and, extra] }
}
