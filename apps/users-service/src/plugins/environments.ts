import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { CreateEnvironmentBody, Environment } from '@quire/contracts'
import { DuplicateKeyError, type RecordStore } from '@quire/records'
import { fail } from '../lib/fail.js'
import { COLLECTIONS, type EnvironmentRecord } from '../collections.js'

export interface EnvironmentsRepository {
  create(body: CreateEnvironmentBody, actorId: string): Promise<Environment>
  list(): Promise<Environment[]>
}

declare module 'fastify' {
  interface FastifyInstance {
    environments: EnvironmentsRepository
  }
}

const toEnvironment = ({ _id, name, _createdOn, _createdByUserId }: EnvironmentRecord): Environment => ({
  _id,
  name,
  _createdOn,
  _createdByUserId,
})

function environmentsRepository(store: RecordStore): EnvironmentsRepository {
  const environments = COLLECTIONS.environments.in(store)
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

/** `app.environments`: the tenants, managed by super-administrators. */
export const environmentsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('environments', environmentsRepository(store))
  },
  { name: '@quire/users-environments', fastify: '5.x' },
)
