import type { Scope } from '@quire/auth'
import type { AccessGroup, Permissions } from '@quire/contracts'
import type { Filter } from '@quire/records'
import { fail } from '@quire/service-kit'
import type { ListQuery } from './list-query.js'

/** What the visibility rules read of a caller (`userId`: for access-group objects naming members by id). */
type Role = Pick<Scope, 'administrator' | 'groups'> & { readonly userId?: string }

const ACTIONS = ['read', 'create', 'update', 'delete']
const ADMINISTRATOR: Permissions = Object.freeze({ fullPermissions: true, userActionPermissions: ACTIONS })
const MEMBER: Permissions = Object.freeze({ fullPermissions: false, userActionPermissions: ACTIONS })
/** Each role's `_permissions` as a field of JSON text, serialized once instead of on every get and list. */
const MEMBER_FIELD = `"_permissions":${JSON.stringify(MEMBER)}`

/**
 * A definition's `_permissions`: members may act on the documents visible to them; only administrators hold
 * full permissions (they also manage the definitions). One frozen object per role.
 */
export const permissionsOf = (role: Role): Permissions => (role.administrator ? ADMINISTRATOR : MEMBER)

/**
 * A document's `_permissions` add `changeAccessGroups` for a caller who may remove any of its `accessGroups`: an
 * administrator, or a member who belongs to every one of them (none included). Without it a member may still
 * update the document, keeping the groups they do not belong to (`checkGroupsWrite`).
 */
const CHANGE_GROUPS = 'changeAccessGroups'
const DOCUMENT_ADMINISTRATOR: Permissions = Object.freeze({
  fullPermissions: true,
  userActionPermissions: [...ACTIONS, CHANGE_GROUPS],
})
const DOCUMENT_OWNER: Permissions = Object.freeze({
  fullPermissions: false,
  userActionPermissions: [...ACTIONS, CHANGE_GROUPS],
})
const FIELDS = {
  administrator: `"_permissions":${JSON.stringify(DOCUMENT_ADMINISTRATOR)}`,
  owner: `"_permissions":${JSON.stringify(DOCUMENT_OWNER)}`,
  member: MEMBER_FIELD,
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const listed = (value: unknown, member: (item: unknown) => boolean) => Array.isArray(value) && value.some(member)

/**
 * Whether `role` is in one entry of `accessGroups`: a group name among its groups, or an access-group object
 * naming it in `memberUserIds` or one of its groups in `memberGroupIds`. `memberRelatedAccessGroupIds` are not
 * followed: Quire stores no access groups to relate.
 */
function isIn(role: Role, group: unknown): boolean {
  if (typeof group === 'string') return role.groups.includes(group)
  if (!isObject(group)) return false
  return (
    (role.userId !== undefined && listed(group.memberUserIds, (id) => id === role.userId)) ||
    listed(group.memberGroupIds, (id) => typeof id === 'string' && role.groups.includes(id))
  )
}

/** Whether `role` is in every entry of `groups` (administrators: always). */
function holdsAll(role: Role, groups: readonly unknown[]): boolean {
  return role.administrator || groups.every((group) => isIn(role, group))
}

/** A document's `_permissions` for the caller, from its `accessGroups` (missing or not a list: none). */
export function documentPermissions(role: Role, accessGroups: unknown): Permissions {
  if (role.administrator) return DOCUMENT_ADMINISTRATOR
  return holdsAll(role, Array.isArray(accessGroups) ? accessGroups : []) ? DOCUMENT_OWNER : MEMBER
}

/**
 * `documentPermissions` as a field of JSON text, for a stored document's text. Cheap where it matters: one
 * constant for administrators and for members without groups (they see only documents without groups); for
 * the others the text's top-level `accessGroups` is found by a scan, without decoding the document.
 */
export function documentPermissionsField(role: Role, json: string): string {
  if (role.administrator) return FIELDS.administrator
  // Without groups a member sees documents without groups, or those whose access-group objects name them.
  if (role.groups.length === 0 && !json.includes('"memberUserIds"')) return FIELDS.owner
  return holdsAll(role, topLevelArray(json, 'accessGroups')) ? FIELDS.owner : FIELDS.member
}

const QUOTE = 34
const BACKSLASH = 92

/** The top-level array `key` of an object's JSON text (empty when absent or not an array), read without decoding the rest. */
function topLevelArray(json: string, key: string): unknown[] {
  const quoted = `"${key}":`
  let depth = 0
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i)
    if (code === QUOTE) {
      if (depth === 1 && json.startsWith(quoted, i)) return arrayAt(json, i + quoted.length)
      for (i++; json.charCodeAt(i) !== QUOTE; i++) if (json.charCodeAt(i) === BACKSLASH) i++
    } else if (code === 123 || code === 91) depth++
    else if (code === 125 || code === 93) depth--
  }
  return []
}

function arrayAt(json: string, start: number): unknown[] {
  if (json.charCodeAt(start) !== 91) return []
  let depth = 0
  for (let i = start; i < json.length; i++) {
    const code = json.charCodeAt(i)
    if (code === QUOTE) {
      for (i++; json.charCodeAt(i) !== QUOTE; i++) if (json.charCodeAt(i) === BACKSLASH) i++
    } else if (code === 123 || code === 91) depth++
    else if ((code === 125 || code === 93) && --depth === 0) return JSON.parse(json.slice(start, i + 1)) as unknown[]
  }
  return []
}

/**
 * Who may write `accessGroups`: administrators any; a member may add only groups they belong to and may not
 * remove one they do not belong to (so a member can neither hide a document from others nor unhide it). 403.
 */
export function checkGroupsWrite(role: Role, before: readonly AccessGroup[], after: readonly AccessGroup[]): void {
  if (role.administrator) return
  // An object is the same entry only with the same `_id` and members: changing its members removes and adds it.
  const beforeKeys = new Set(before.map(entryKey))
  const afterKeys = new Set(after.map(entryKey))
  const added = after.filter((group) => !beforeKeys.has(entryKey(group)) && !isIn(role, group))
  const removed = before.filter((group) => !afterKeys.has(entryKey(group)) && !isIn(role, group))
  if (added.length === 0 && removed.length === 0) return
  const names = (groups: AccessGroup[]) => groups.map((group) => `"${nameOf(group)}"`).join(', ')
  const what = [added.length > 0 ? `add ${names(added)}` : '', removed.length > 0 ? `remove ${names(removed)}` : '']
  throw fail(
    'forbidden',
    `accessGroups: a member may not ${what.filter(Boolean).join(' or ')} (not a group of theirs)`,
    'You can only add or remove access groups you belong to',
  )
}

const nameOf = (group: AccessGroup): string => (typeof group === 'string' ? group : group._id)
const sorted = (ids: readonly string[] | undefined) => [...(ids ?? [])].sort()
/** What makes two entries the same: a name, or an object's `_id` and members (in any order). */
const entryKey = (group: AccessGroup): string =>
  typeof group === 'string'
    ? JSON.stringify(group)
    : JSON.stringify([
        group._id,
        sorted(group.memberUserIds),
        sorted(group.memberGroupIds),
        sorted(group.memberRelatedAccessGroupIds),
      ])

/** `_permissions` is computed, so it goes on a listed item unless the projection leaves it out. */
export function keepsPermissions(query: Pick<ListQuery, 'projection'>): boolean {
  const { projection } = query
  const including = Object.values(projection).includes(1)
  return including ? projection._permissions === 1 : projection._permissions !== 0
}

/**
 * Members see documents without access groups, or with one they are in (`isIn`: a group of theirs, an
 * access-group object naming them or one of their groups); administrators see all. A filter, so that a page is
 * filled with visible documents only and a single document is read with the rule applied.
 */
export function visibilityFilter(role: Role): Filter | undefined {
  if (role.administrator) return undefined
  // No first group: empty, or missing or null in a record this API did not write.
  const noGroups = { 'accessGroups.0': { $exists: false } }
  const groups = [...role.groups]
  const inOne: Filter[] = [
    ...(groups.length > 0 ? [{ accessGroups: { $in: groups } }] : []),
    ...(role.userId !== undefined ? [{ 'accessGroups.memberUserIds': role.userId }] : []),
    ...(groups.length > 0 ? [{ 'accessGroups.memberGroupIds': { $in: groups } }] : []),
  ]
  return inOne.length === 0 ? noGroups : { $or: [noGroups, ...inOne] }
}

/** Adds `extra` with `$and`, keeping the client's top-level equalities where an index planner sees them. */
export function withCondition(filter: Filter, extra: Filter | undefined): Filter {
  if (!extra) return filter
  const and = Array.isArray(filter.$and) ? filter.$and : []
  return { ...filter, $and: [...and, extra] }
}
