import type { CreateEnvironmentBody, Environment, UpdateEnvironmentBody } from '@quire/contracts'
import { DuplicateKeyError, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'
import { COLLECTIONS, type EnvironmentRecord, type UserRecord } from '../collections.js'

export interface EnvironmentsRepository {
  create(body: CreateEnvironmentBody, actorId: string): Promise<Environment>
  /** Every environment (super-administrators). */
  list(): Promise<Environment[]>
  /** The active environments the user has an active entry in. */
  listFor(userId: string): Promise<Environment[]>
  get(environmentId: string): Promise<Environment>
  update(environmentId: string, changes: UpdateEnvironmentBody, actorId: string): Promise<Environment>
  /**
   * Deletes the environment; refused while users have entries in it unless `force`, which removes them. The record
   * stays as a tombstone, so the id is never reused: what other services stored for it stays unreachable.
   */
  delete(environmentId: string, force: boolean, actorId: string): Promise<{ removedUserEntries: number }>
}

const toEnvironment = ({ _id, name, active, _createdOn, _createdByUserId }: EnvironmentRecord): Environment => ({
  _id,
  name,
  active: active !== false,
  _createdOn,
  _createdByUserId,
})

const LIVE = { deletedOn: { $exists: false } }
const notFound = (environmentId: string) =>
  fail('not_found', `No environment ${environmentId}`, 'This environment does not exist')

/** Concurrent changes to one user's entries are rare; retry a few times. */
const MAX_ATTEMPTS = 5
/** Users whose entries a forced delete loads at once. */
const REMOVAL_BATCH = 500

export function createEnvironmentsRepository(store: RecordStore): EnvironmentsRepository {
  const environments = COLLECTIONS.environments.in(store)
  const users = COLLECTIONS.users.in(store)

  /** Removes the user's entry of the environment, and the derived lists with it, unless they changed meanwhile. */
  async function removeEntry(user: UserRecord, environmentId: string): Promise<void> {
    let current: UserRecord | null = user
    for (let attempt = 0; attempt < MAX_ATTEMPTS && current; attempt++) {
      const updated = await users.updateOne(
        {
          _id: current._id,
          environmentIds: current.environmentIds,
          activeEnvironmentIds: current.activeEnvironmentIds,
        },
        {
          $unset: { [`profile.environments.${environmentId}`]: '' },
          $set: {
            environmentIds: current.environmentIds.filter((id) => id !== environmentId),
            activeEnvironmentIds: current.activeEnvironmentIds.filter((id) => id !== environmentId),
          },
        },
      )
      if (updated) return
      current = await users.findOne({ _id: user._id, environmentIds: environmentId })
    }
    if (current) throw new Error(`the entries of user ${user._id} kept changing`)
  }

  return {
    async create({ _id, name }, actorId) {
      try {
        return toEnvironment(
          await environments.insertOne({
            _id,
            name,
            active: true,
            _createdOn: new Date().toISOString(),
            _createdByUserId: actorId,
          }),
        )
      } catch (err) {
        if (err instanceof DuplicateKeyError) {
          throw fail('duplicate_name', `The environment ${_id} exists or existed`, 'This environment id is taken')
        }
        throw err
      }
    },
    async list() {
      return (await environments.find(LIVE, { sort: { _id: 1 } })).map(toEnvironment)
    },
    async listFor(userId) {
      const user = await users.findOne({ _id: userId })
      const ids = user?.activeEnvironmentIds ?? []
      if (ids.length === 0) return []
      const found = await environments.find({ _id: { $in: ids }, ...LIVE }, { sort: { _id: 1 } })
      return found.filter((environment) => environment.active !== false).map(toEnvironment)
    },
    async get(environmentId) {
      const found = await environments.findOne({ _id: environmentId, ...LIVE })
      if (!found) throw notFound(environmentId)
      return toEnvironment(found)
    },
    async update(environmentId, { name, active }, actorId) {
      const updated = await environments.updateOne(
        { _id: environmentId, ...LIVE },
        {
          $set: {
            ...(name === undefined ? {} : { name }),
            ...(active === undefined ? {} : { active }),
            _lastModifiedOn: new Date().toISOString(),
            _lastModifiedByUserId: actorId,
          },
        },
      )
      if (!updated) throw notFound(environmentId)
      return toEnvironment(updated)
    },
    async delete(environmentId, force, actorId) {
      if (!(await environments.findOne({ _id: environmentId, ...LIVE }))) throw notFound(environmentId)
      const members = await users.count({ environmentIds: environmentId })
      if (members > 0 && !force) {
        throw fail(
          'validation_error',
          `${members} users have entries in environment ${environmentId}; delete with ?force=true to remove them`,
          'This environment still has users; remove them first or confirm the deletion',
        )
      }
      // Entries first, the tombstone last: a delete that fails midway can be sent again. In batches, on the index.
      let removed = 0
      for (;;) {
        const batch = await users.find({ environmentIds: environmentId }, { limit: REMOVAL_BATCH })
        if (batch.length === 0) break
        for (const user of batch) await removeEntry(user, environmentId)
        removed += batch.length
      }
      const deletedOn = new Date().toISOString()
      const deleted = await environments.updateOne(
        { _id: environmentId, ...LIVE },
        { $set: { active: false, deletedOn, _lastModifiedOn: deletedOn, _lastModifiedByUserId: actorId } },
      )
      if (!deleted) throw notFound(environmentId)
      return { removedUserEntries: removed }
    },
  }
}
