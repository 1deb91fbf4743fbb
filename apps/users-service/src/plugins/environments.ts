import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { RecordStore } from '@quire/records'
import { createEnvironmentsRepository, type EnvironmentsRepository } from '../domain/environments.js'

declare module 'fastify' {
  interface FastifyInstance {
    environments: EnvironmentsRepository
  }
}

/** `app.environments`: the tenants, managed by super-administrators. */
export const environmentsPlugin = fp(
  async (app: FastifyInstance, { store }: { store: RecordStore }) => {
    app.decorate('environments', createEnvironmentsRepository(store))
  },
  { name: '@quire/users-environments', fastify: '5.x' },
)
