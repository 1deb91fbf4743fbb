import type { CreateEnvironmentBody, Environment, EnvironmentRecord } from '@quire/contracts'
import { DuplicateKeyError, type RecordStore } from '@quire/records'
import { fail } from '@quire/service-kit'

export interface EnvironmentsRepository {
  create(body: CreateEnvironmentBody, actorId: string): Promise<Environment>
  list(): Promise<Environment[]>
}

const toEnvironment = ({ _id, name, _createdOn, _createdByUserId }: EnvironmentRecord): Environment => ({
  _id,
  name,
  _createdOn,
  _createdByUserId,
})

export function environmentsRepository(store: RecordStore): EnvironmentsRepository {
  const environments = store.collection<EnvironmentRecord>('environments')
  return {
    async create({ _id, name }, actorId) {
      try {
        return toEnvironment(
          await environments.insertOne({ _id, name, _createdOn: new Date().toISOString(), _createdByUserId: actorId }),
        )
      } catch (err) {
        if (err instanceof DuplicateKeyError) {
          throw fail('duplicate_name', `The environment ${_id} exists`, 'This environment id is taken')
        }
        throw err
      }
    },
    async list() {
      return (await environments.find({}, { sort: { _id: 1 } })).map(toEnvironment)
    },
  }
}
