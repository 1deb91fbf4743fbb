import type { User, UserReferenceData } from '@quire/contracts'
import type { UserRecord } from '../collections.js'

/**
 * A user as a response in `environmentId` shows it. Built field by field (never by deleting from the record),
 * so `authentication`, the derived environment lists and other environments' entries cannot slip through.
 */
export function toUser(record: UserRecord, environmentId: string, exclude: ReadonlySet<string> = new Set()): User {
  const { environments, ...profile } = record.profile
  const entry = environments[environmentId]
  const user: User = {
    _id: record._id,
    username: record.username,
    profile: { ...profile, environments: entry ? { [environmentId]: entry } : {} },
    globalEmails: record.globalEmails,
    lastLogin: record.lastLogin,
    isSuperAdministrator: record.isSuperAdministrator,
    _createdOn: record._createdOn,
    _createdByUserId: record._createdByUserId,
    _lastModifiedOn: record._lastModifiedOn,
    _lastModifiedByUserId: record._lastModifiedByUserId,
  }
  return exclude.size === 0
    ? user
    : (Object.fromEntries(Object.entries(user).filter(([field]) => !exclude.has(field))) as User)
}

/** What other records show when they refer to this user in `environmentId`. */
export function toReferenceData(record: UserRecord, environmentId: string): UserReferenceData {
  const entry = record.profile.environments[environmentId]
  return {
    _id: record._id,
    username: record.username,
    name: entry?.name ?? '',
    email: entry?.email ?? '',
    language: entry?.language ?? '',
    locale: entry?.locale ?? '',
    groups: entry?.groups ?? [],
    administrator: entry?.administrator ?? false,
    active: entry?.active ?? false,
  }
}
